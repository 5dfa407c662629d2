/**
 * `medsynth index tune` through the real CLI on the bundled corpus's on-disk IVF-FLAT index: the
 * curve, the chosen nprobes and the held-out recall are printed and stored (read back by the
 * library), the build's own check is kept; it never builds; bad question files and corpora
 * without an on-disk index are clear errors.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { readQuestionTexts } from "../../experiments/cli/index-tune.ts";
import { createRetriever } from "../../retrieval/registry.ts";
import { reachesRecall, type LanceAnnStore } from "../../retrieval/lance/disk-engines.ts";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import type { SynthesisTask } from "../../corpus/types.ts";
import { runCli } from "./run-cli.ts";

describe("index tune (CLI), and index build --rebuild", () => {
  let dir: string;
  let questions: string;
  const common = () => ["--corpus", "bundled", "--engine", "lance", "--ann", "ivf_flat", "--disk-dir", join(dir, "idx")];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-tune-"));
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    questions = join(dir, "questions.json");
    writeFileSync(questions, JSON.stringify(tasks.slice(0, 60).map((t) => ({ question: t.question }))));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("never builds: without a built index it says how to build one, and writes nothing", () => {
    const r = runCli(["index", "tune", "--queries", questions, ...common()]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      `index tune: no on-disk index folder ${join(dir, "idx")}; build the index first: node bin/medsynth.js index build --mode dense --corpus bundled --engine lance --ann ivf_flat --disk-dir ${join(dir, "idx")}`,
    );
    expect(existsSync(join(dir, "idx"))).toBe(false);
    mkdirSync(join(dir, "empty"));
    const e = runCli(["index", "tune", "--queries", questions, "--corpus", "bundled", "--engine", "lance", "--ann", "ivf_flat", "--disk-dir", join(dir, "empty")]);
    expect(e.status).not.toBe(0);
    expect(e.stderr).toMatch(
      /index tune: lance ann: no built ivf_flat index ann_\w+ for embedder \S+ in .*empty; build it first: node bin\/medsynth\.js index build --mode dense --corpus bundled --engine lance --ann ivf_flat --disk-dir .*empty\n/,
    );
  });

  it("tunes the built index on the questions, prints the curve and stores nprobes with the held-out recall", async () => {
    const b = runCli(["index", "build", "--mode", "dense", ...common()]);
    expect(b.status, b.stderr).toBe(0);
    const buildRecall = Number(/recall@10 vs exact ([\d.]+)/.exec(b.stdout)?.[1]);
    expect(buildRecall).toBeGreaterThanOrEqual(0.95);
    const r = runCli(["index", "tune", "--queries", questions, "--target", "0.9", ...common(), "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as {
      nprobes: number;
      recallAt10HeldOut: number;
      recallAt10Tune: number;
      stored: boolean;
      tuning: { curve: { nprobes: number; recallTune: number }[]; tuneQueries: number; heldOutQueries: number };
    };
    expect(rep.stored).toBe(true);
    expect(rep.tuning.tuneQueries + rep.tuning.heldOutQueries).toBe(60);
    expect(rep.tuning.heldOutQueries).toBe(30);
    // Doubling from 1: each point but the last is below the target, the last reaches it.
    const curve = rep.tuning.curve;
    // Doubling until the target (0.9) is reached, then up to 3 bisection steps between the last
    // miss and the first hit; the smallest nprobes that reaches it is chosen.
    const doubling = curve.findIndex((p) => reachesRecall(p.recallTune, 0.9)) + 1;
    expect(doubling).toBeGreaterThan(1);
    expect(curve.slice(0, doubling).map((p) => p.nprobes)).toEqual(curve.slice(0, doubling).map((_, i) => 2 ** i));
    expect(curve.length - doubling).toBeLessThanOrEqual(3);
    for (const p of curve.slice(0, doubling - 1)) expect(reachesRecall(p.recallTune, 0.9)).toBe(false);
    let [missed, hit] = [curve[doubling - 2].nprobes, curve[doubling - 1].nprobes];
    for (const p of curve.slice(doubling)) {
      expect(p.nprobes).toBe(Math.floor((missed + hit) / 2));
      if (reachesRecall(p.recallTune, 0.9))
        hit = p.nprobes; // a mean at the target counts despite rounding
      else missed = p.nprobes;
    }
    expect(rep.nprobes).toBe(hit);
    // The library reopens the index with the tuned nprobes and the held-out recall.
    const docs = (await loadBundledCorpus()).docs;
    const ret = await createRetriever({ mode: "dense", engine: "lance", disk: { dir: join(dir, "idx"), mode: "open", ann: { index: "ivf_flat" } } }, { docs, log: () => {} });
    const m = (ret.store as LanceAnnStore).meta;
    expect(m.nprobes).toBe(rep.nprobes);
    expect(m.recallAt10).toBe(rep.recallAt10HeldOut);
    expect(m.recallMethod).toBe("queries-held-out");
    expect(m.recallSample).toBe(30);
    expect(m.buildRecall?.recallAt10).toBeCloseTo(buildRecall, 3);
    expect(m.queryTuning?.curve).toEqual(curve);
    // index build reopens it and says what searches use.
    const again = runCli(["index", "build", "--mode", "dense", ...common()]);
    expect(again.stdout).toContain(`already built; 3340 docs`);
    expect(again.stdout).toContain(`ivf_flat, recall@10 vs exact ${rep.recallAt10HeldOut.toFixed(3)} on held-out questions (index tune) at nprobes ${rep.nprobes}/58)`);
    expect(b.stdout).toMatch(/ivf_flat, recall@10 vs exact \d\.\d{3} at nprobes \d+\/58\)/);
    // The text report says what was stored.
    const t = runCli(["index", "tune", "--queries", questions, "--target", "0.9", ...common(), "--dry-run"]);
    expect(t.status, t.stderr).toBe(0);
    expect(t.stderr).toContain("exact top-10 of 60 questions kept by an earlier tuning on the same questions and index"); // no second pass
    expect(t.stdout).toMatch(/questions: 60 from .*questions\.json \(30 tune, 30 held out\)/);
    // The curve in nprobes order, the chosen row marked.
    const rows = t.stdout.split("\n").filter((l) => /^\s+\d+\s+\d\.\d{3}\s+\d\.\d{3}/.test(l));
    const shown = rows.map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(shown).toEqual([...curve.map((p) => p.nprobes)].sort((x, y) => x - y));
    expect(rows.filter((l) => l.endsWith("  *")).map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([rep.nprobes]);
    expect(t.stdout).toMatch(
      new RegExp(
        `nprobes ${rep.nprobes}: recall@10 ${rep.recallAt10HeldOut.toFixed(3)} on the held-out questions \\(target 0.9(; below the target on the held-out questions)?\\); not stored \\(--dry-run\\)`,
      ),
    ); // the held-out half may fall below (IVF training is not seeded)
    expect(t.stdout).not.toContain("coarse");
    // A split leaving few questions on either side says so (3 to tune on; 3 held out).
    for (const [share, note] of [
      ["0.95", "nprobes chosen on only 3 question(s): a coarse choice (lower --held-out or give more questions)"],
      ["0.05", "only 3 held-out question(s): a coarse figure"],
    ] as const) {
      const few = runCli(["index", "tune", "--queries", questions, "--held-out", share, ...common(), "--dry-run"]);
      expect(few.status, few.stderr).toBe(0);
      expect(few.stdout).toContain(note);
    }
    // index build --rebuild builds the table again (its tuning goes with it); without it, reopens.
    const rb = runCli(["index", "build", "--mode", "dense", "--rebuild", ...common()]);
    expect(rb.status, rb.stderr).toBe(0);
    expect(rb.stdout).toMatch(/\(built; 3340 docs, .*ivf_flat, recall@10 vs exact \d\.\d{3} at nprobes \d+\/58\)/);
    expect(rb.stdout).not.toContain("index tune");
    const ret2 = await createRetriever({ mode: "dense", engine: "lance", disk: { dir: join(dir, "idx"), mode: "open", ann: { index: "ivf_flat" } } }, { docs, log: () => {} });
    expect((ret2.store as LanceAnnStore).meta.queryTuning).toBeUndefined();
    expect((ret2.store as LanceAnnStore).meta.recallMethod).toBe("duplicates-left-out");
    // The exact lists kept by the tunings went with the old table: the next tuning scans again.
    const t2 = runCli(["index", "tune", "--queries", questions, "--target", "0.9", ...common(), "--dry-run"]);
    expect(t2.status, t2.stderr).toBe(0);
    expect(t2.stderr).toMatch(/exact top-10 of 60 questions in [\d.]+ s \(one pass over 3340 vectors\)/);
  }, 300_000);

  it("an in-memory corpus has no IVF index to tune (refused before anything is embedded or written); bad options and files are named", () => {
    const cache = join(dir, "cache");
    for (const engine of [["--engine", "memory"], []]) {
      const mem = runCli(["index", "tune", "--queries", questions, "--corpus", "bundled", ...engine], { env: { MEDSYNTH_CACHE_DIR: cache } });
      expect(mem.status).not.toBe(0);
      expect(mem.stderr).toMatch(
        /index tune: bundled \(3340 docs\) runs on the in-memory engine, which has no on-disk IVF index to tune: corpora from 250,000 docs run on disk, or give --engine lance\|disk here and to `node bin\/medsynth\.js index build --mode dense --corpus bundled --engine lance`/,
      );
      expect(mem.stderr).not.toMatch(/embedded|built table/);
      expect(existsSync(join(cache, "lancedb"))).toBe(false);
    }
    const target = runCli(["index", "tune", "--queries", questions, "--target", "1.5", ...common()]);
    expect(target.stderr).toMatch(/--target: expected a number in \(0, 1\] \(got "1.5"\)/);
    const held = runCli(["index", "tune", "--queries", questions, "--held-out", "1", ...common()]);
    expect(held.stderr).toMatch(/--held-out: expected a number in \(0, 1\) \(got "1"\)/);
  });

  it("question files: JSON strings or objects, JSONL, plain lines; errors name the file and item", () => {
    const f = (name: string, text: string) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    expect(readQuestionTexts(f("a.json", JSON.stringify(["one", { query: "two" }, { text: " three " }, ""])))).toEqual(["one", "two", "three"]);
    expect(readQuestionTexts(f("b.jsonl", '{"question":"one"}\n\n"two"\n'))).toEqual(["one", "two"]);
    expect(readQuestionTexts(f("c.txt", "one\n  \ntwo\n"))).toEqual(["one", "two"]);
    expect(() => readQuestionTexts(join(dir, "missing.json"))).toThrow(/--queries: .*missing\.json does not exist/);
    expect(() => readQuestionTexts(f("d.json", "{"))).toThrow(/d\.json: not valid JSON/);
    expect(() => readQuestionTexts(f("e.json", '{"q":1}'))).toThrow(/e\.json: expected a JSON array of questions/);
    expect(() => readQuestionTexts(f("g.json", '["ok", {"id": 3}]'))).toThrow(/g\.json: item 1: expected a string or an object with a "question", "query" or "text" string/);
    expect(() => readQuestionTexts(f("h.jsonl", '"ok"\n{bad\n'))).toThrow(/h\.jsonl: line 2: not valid JSON/);
    expect(() => readQuestionTexts(f("i.txt", "\n \n"))).toThrow(/i\.txt: no question found/);
    expect(() => readQuestionTexts(f("empty.json", ""))).toThrow(/empty\.json: no question found \(the file is empty\)/); // not "Unexpected end of JSON input"
    // Other extensions: by the first character; a BOM is ignored; a folder is named.
    expect(readQuestionTexts(f("j", '[\n  "one",\n  "two"\n]\n'))).toEqual(["one", "two"]);
    expect(readQuestionTexts(f("k.txt", '{"question":"one"}\n{"query":"two"}\n'))).toEqual(["one", "two"]);
    expect(readQuestionTexts(f("l.ndjson", '{"text":"one"}\n'))).toEqual(["one"]);
    expect(readQuestionTexts(f("m.json", '\uFEFF["one"]'))).toEqual(["one"]);
    expect(() => readQuestionTexts(dir)).toThrow(/--queries: .* is a folder; expected a file of questions/);
  });
});
