/**
 * `--bm25-engine disk` selects medsynth's on-disk BM25 engine: the retriever config gets
 * `engine: "disk"` (not a `bm25.engine`), and `fast` / `wink` keep mapping to `bm25.engine`; the
 * allowed values are one list (help and error agree), and a value that contradicts `--engine` is an
 * error naming both flags.
 */
import { describe, expect, it } from "vitest";
import { BM25_ENGINE_OPTION_VALUES, noteUnusedThreads, retrieverConfig } from "../../experiments/cli/retrieval-commands.ts";
import { HELP_BM25_ENGINES } from "../../experiments/cli/help-ids.ts";
import { runCli } from "./run-cli.ts";

describe("--bm25-engine", () => {
  it("disk → retriever engine disk; fast/wink → bm25.engine", () => {
    const disk = retrieverConfig({ bm25Engine: "disk" }, "bm25");
    expect(disk.engine).toBe("disk");
    expect(disk.bm25).toBeUndefined();
    expect(retrieverConfig({ bm25Engine: "wink" }, "bm25")).toMatchObject({ bm25: { engine: "wink" } });
    expect(retrieverConfig({ bm25Engine: "fast" }, "bm25").engine).toBeUndefined();
  });
  it("an unknown engine is an error naming the option and every allowed value (the help's list)", () => {
    expect(() => retrieverConfig({ bm25Engine: "lucene" }, "bm25")).toThrow(/^--bm25-engine: expected one of fast, wink, disk \(got "lucene"\)$/);
    expect([...BM25_ENGINE_OPTION_VALUES]).toEqual([...HELP_BM25_ENGINES]);
  });
  it("a --bm25-engine that contradicts --engine is an error naming both; consistent pairs keep working", () => {
    expect(() => retrieverConfig({ bm25Engine: "disk", engine: "lance" }, "bm25")).toThrow(/^--bm25-engine disk conflicts with --engine lance: /);
    expect(() => retrieverConfig({ bm25Engine: "disk", engine: "memory" }, "bm25")).toThrow(/^--bm25-engine disk conflicts with --engine memory: /);
    expect(() => retrieverConfig({ bm25Engine: "wink", engine: "disk" }, "bm25")).toThrow(/^--bm25-engine wink conflicts with --engine disk: /);
    expect(() => retrieverConfig({ bm25Engine: "fast", engine: "lance" }, "bm25")).toThrow(/^--bm25-engine fast conflicts with --engine lance: /);
    expect(retrieverConfig({ bm25Engine: "disk", engine: "disk" }, "bm25").engine).toBe("disk");
    expect(retrieverConfig({ bm25Engine: "wink", engine: "memory" }, "bm25")).toMatchObject({ engine: "memory", bm25: { engine: "wink" } });
    expect(retrieverConfig({ bm25Engine: "wink", engine: "auto" }, "bm25")).toMatchObject({ engine: "auto", bm25: { engine: "wink" } });
    expect(retrieverConfig({ engine: "lance" }, "bm25").engine).toBe("lance");
  });
  it("the real CLI: the help lists the same values, a conflict exits 1 naming both flags", () => {
    const help = runCli(["search", "--help"]);
    expect(help.stdout).toMatch(/--bm25-engine <engine>\s+fast \| wink \| disk /);
    const r = runCli(["search", "q", "--bm25-engine", "wink", "--engine", "disk"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^medsynth: --bm25-engine wink conflicts with --engine disk: /);
  });
});

describe("--bm25-threads", () => {
  it("auto or a whole number 1–64 → bm25Disk.threads; anything else names the option and quotes the text", () => {
    expect(retrieverConfig({ bm25Engine: "disk", bm25Threads: "2" }, "bm25").bm25Disk).toEqual({ threads: 2 });
    expect(retrieverConfig({ bm25Threads: "auto" }, "bm25").bm25Disk).toEqual({ threads: "auto" });
    expect(retrieverConfig({}, "bm25").bm25Disk).toBeUndefined();
    for (const bad of ["x", "0", "2.5", "65", "0x2", ""])
      expect(() => retrieverConfig({ bm25Threads: bad }, "bm25")).toThrow(`--bm25-threads: expected auto or a whole number from 1 to 64 (got ${JSON.stringify(bad)})`);
  });
  it("the real CLI: 2 threads print the same hits and scores as 1 on the on-disk engine", () => {
    const hits = (threads: string) => {
      const r = runCli(["search", "aspirin for stroke prevention in atrial fibrillation", "--bm25-engine", "disk", "--bm25-threads", threads, "--k", "10"]);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split("\n").filter((l) => /^\d+\s+\d+/.test(l));
    };
    const one = hits("1");
    expect(one).toHaveLength(10);
    expect(hits("2")).toEqual(one);
  }, 120_000);
});

describe("--bm25-threads with an engine it does not apply to", () => {
  it("an in-memory --bm25-engine or --engine memory|lance is an error naming both; disk and auto keep it", () => {
    expect(() => retrieverConfig({ bm25Engine: "fast", bm25Threads: "2" }, "bm25")).toThrow(
      /^--bm25-threads conflicts with --bm25-engine fast: threads per query apply to medsynth's on-disk BM25 only/,
    );
    expect(() => retrieverConfig({ engine: "lance", bm25Threads: "2" }, "bm25")).toThrow(/^--bm25-threads conflicts with --engine lance: /);
    expect(() => retrieverConfig({ engine: "memory", bm25Threads: "auto" }, "bm25")).toThrow(/^--bm25-threads conflicts with --engine memory: /);
    expect(retrieverConfig({ engine: "auto", bm25Threads: "2" }, "bm25").bm25Disk).toEqual({ threads: 2 });
    expect(retrieverConfig({ engine: "disk", bm25Threads: "2" }, "bm25").bm25Disk).toEqual({ threads: 2 });
  });
});

describe("--bm25-threads where no on-disk BM25 is built", () => {
  it("engine auto on the bundled corpus (in-memory BM25) and mode dense: a note says the option had no effect", () => {
    const r = runCli(["search", "statin", "--bm25-threads", "2", "--k", "3"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: --bm25-threads has no effect here: it applies to medsynth's on-disk BM25 only, and this retriever uses the in-memory BM25 \(engine memory; /);
    const lines: string[] = [];
    noteUnusedThreads({ bm25Threads: "2" }, { engine: "disk", config: { mode: "dense" } }, (l) => lines.push(l));
    noteUnusedThreads({ bm25Threads: "2" }, { engine: "disk", bm25Disk: {}, config: { mode: "bm25" } }, (l) => lines.push(l));
    noteUnusedThreads({}, { engine: "memory", config: { mode: "bm25" } }, (l) => lines.push(l));
    expect(lines).toEqual(["note: --bm25-threads has no effect here: it applies to medsynth's on-disk BM25 only, and mode dense uses no BM25"]);
  }, 60_000);
});
