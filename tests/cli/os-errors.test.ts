/**
 * Issue 13.9: OS errors outside ingest name the file and the real cause; a truncated .gz read by
 * the JSONL readers (corpus import, `jsonl` dataset) names the file, the line and the byte offset.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { describeOsError } from "../../experiments/cli/os-errors.ts";
import { formatError } from "../../experiments/cli/main.ts";
import { runMetricsCommand } from "../../experiments/cli/judge-commands.ts";
import { runRetrievalScore } from "../../experiments/cli/retrieval-commands.ts";
import { readJsonl } from "../../corpus/jsonl.ts";
import { getDataset } from "../../corpus/datasets/registry.ts";
import { writeResultsAtomic } from "../../results/results-file.ts";
import type { RunRecord } from "../../experiments/types.ts";

const dir = mkdtempSync(join(tmpdir(), "medsynth-oserr-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Node system error as fs throws it. */
function sysErr(code: string, syscall: string, path: string, dest?: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException & { dest?: string } = new Error(`${code}: some text, ${syscall} '${path}'`);
  Object.assign(e, { code, syscall, path, errno: -1, ...(dest ? { dest } : {}) });
  return e;
}

const record: RunRecord = {
  key: "k",
  itemId: "i",
  dataset: "d",
  taskKind: "synthesis",
  model: "m",
  workflow: "w",
  params: {},
  repeat: 0,
  status: "ok",
  output: "a b",
  reference: "a c",
  itemMeta: {},
  intermediate: {},
  generator: { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 1, cached: false },
  startedAt: "x",
  finishedAt: "y",
};

describe("OS errors name the file and the cause", () => {
  it("a port in use (listen EADDRINUSE) says so and names --port, not a file", () => {
    const e = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:8765"), { code: "EADDRINUSE", syscall: "listen", address: "127.0.0.1", port: 8765 });
    expect(describeOsError(e)).toBe("cannot listen on 127.0.0.1:8765: the port is in use (another medsynth view/annotate?); pass --port <free port> or --port 0 for any free one (EADDRINUSE)");
  });

  it("read-only file system, full disk, permission denied: path, words and code", () => {
    expect(describeOsError(sysErr("EROFS", "open", "/mnt/ro/out/results.jsonl"))).toBe("cannot read or open /mnt/ro/out/results.jsonl: read-only file system (EROFS)");
    expect(describeOsError(sysErr("ENOSPC", "write", "/data/run/results.jsonl"))).toBe("cannot write /data/run/results.jsonl: no space left on the device (ENOSPC)");
    expect(describeOsError(sysErr("EACCES", "mkdir", "/root/runs"))).toBe("cannot create the folder /root/runs: permission denied (EACCES)");
    // an atomic write's rename names the file asked for, not the temporary one
    expect(describeOsError(sysErr("EISDIR", "rename", "out.tmp-1", "out"))).toBe("cannot write out: it is a folder, not a file (EISDIR)");
    expect(describeOsError(new Error("plain"))).toBeNull();
    expect(formatError(sysErr("EROFS", "open", "/mnt/ro/x"))).toContain("/mnt/ro/x: read-only file system");
  });

  it("`metrics --out` on a folder: the folder is named with EISDIR", async () => {
    const results = join(dir, "results.jsonl");
    writeResultsAtomic(results, [record]);
    const outDir = join(dir, "a-folder");
    mkdirSync(outDir);
    const err = await runMetricsCommand(results, { metrics: ["rouge"], out: outDir, log: () => {} }).then(
      () => null,
      (e) => e,
    );
    expect(err).not.toBeNull();
    expect(formatError(err)).toBe(`cannot write ${outDir}: it is a folder, not a file (EISDIR)`);
  });

  it("`metrics --out` under a file: ENOTDIR/EEXIST naming the path", async () => {
    const results = join(dir, "results2.jsonl");
    writeResultsAtomic(results, [record]);
    const err = await runMetricsCommand(results, { metrics: ["rouge"], out: join(results, "x.jsonl"), log: () => {} }).then(
      () => null,
      (e) => e,
    );
    expect(formatError(err)).toMatch(new RegExp(`^cannot create the folder ${results.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*\\((EEXIST|ENOTDIR)\\)$`));
  });

  it("`retrieval score` with a folder as qrels names it", () => {
    const run = join(dir, "run.trec");
    writeFileSync(run, "q1 Q0 d1 1 1.0 t\n");
    expect(() => runRetrievalScore(run, dir, { k: "5" }, () => {})).toThrow(`TREC qrels ${dir}: it is a folder, not a file`);
  });
});

describe("a truncated .gz names the file, the line and the byte offset", () => {
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: String(i), title: `t${i}`, text: `word ${i} `.repeat(30) })).join("\n") + "\n";
  const whole = gzipSync(lines);
  const cut = whole.subarray(0, Math.floor(whole.length / 2));
  const file = join(dir, "corpus.jsonl.gz");
  writeFileSync(file, cut);

  it("readJsonl (corpus import): path, last line read, compressed byte offset = where the file ends", async () => {
    let n = 0;
    const err = await (async () => {
      for await (const _ of readJsonl(file)) n++;
    })().then(
      () => null,
      (e: Error) => e,
    );
    expect(err).not.toBeNull();
    expect(n).toBeGreaterThan(0);
    expect(err!.message).toBe(`${file}: read failed after line ${n} at compressed byte ${cut.length.toLocaleString("en-US")} (the .gz is truncated): unexpected end of file`);
  });

  it("the jsonl dataset loader: same facts", async () => {
    const err = await getDataset("jsonl")
      .load({ path: file })
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(err?.message).toMatch(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: read failed after line \\d+ at compressed byte ${cut.length.toLocaleString("en-US")} \\(the \\.gz is truncated\\)`),
    );
  });
});
