/**
 * `retrieval sweep` with `corpus: lance:<store>` (issue 26): the store is streamed — loadSweepData
 * returns it as a source with no document in memory, the judged ids are looked up by id — and the
 * sweep's per-query metrics equal those of the same documents read from a JSONL file.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { ingestToStore } from "../../corpus/ingest/run-ingest.ts";
import { openCorpusSource } from "../../corpus/corpus-file.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { planSweep } from "../../experiments/sweep/config.ts";
import { loadSweepData, runSweep } from "../../experiments/sweep/run.ts";
import { writeSet } from "../corpus/ingest/fixtures.ts";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("retrieval sweep on a corpus store", () => {
  let store: string;
  let jsonl: string;
  let docs: CorpusDoc[];
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-sweep-store-"));
    // 400 of MedEvidence's own abstracts (numeric PMIDs), so some judged documents are in the store.
    const ds = await loadDataset("medevidence");
    const picked = ds.docs!.filter((d) => /^\d+$/.test(d.id)).slice(0, 400);
    mkdirIn(dir);
    writeSet(
      join(dir, "in"),
      "set.xml",
      picked.map((d) => ({ pmid: d.id, title: esc(d.title), conclusion: esc(d.text.slice(0, 2000)) })),
    );
    store = join(dir, "store");
    await ingestToStore([join(dir, "in")], { store: { uri: store }, clean: null, jobs: 1 });
    // The same documents as the store yields them, as a JSONL corpus file.
    const src = (await openCorpusSource(`lance:${store}`))!;
    docs = [];
    for await (const b of src.scanDocs()) docs.push(...b);
    jsonl = join(dir, "corpus.jsonl");
    writeFileSync(jsonl, docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
  }, 120_000);

  it("loadSweepData keeps the store as a source (no document loaded); the sweep equals the one on the JSONL copy", async () => {
    const raw = {
      name: "s",
      dataset: "medevidence",
      k: [5, 10],
      metric: "ndcg@10",
      baseline: "default",
      settings: [{ name: "default", mode: "bm25" }],
      grid: { b: [0.4] },
      bootstrap: { iterations: 100 },
      randomization: { iterations: 100 },
    };
    const onStore = planSweep({ ...raw, corpus: `lance:${store}` });
    const data = await loadSweepData(onStore, () => {});
    expect(data.docs).toEqual([]);
    expect(await data.source!.count()).toBe(docs.length);
    const a = await runSweep(onStore, { data, log: () => {} });
    const b = await runSweep(planSweep({ ...raw, corpus: jsonl }), { log: () => {} });
    expect(a.corpusDocs).toBe(docs.length);
    expect(a.relevantMissing).toBe(b.relevantMissing);
    expect(a.relevantMissing).toBeLessThan(Object.values(data.qrels).flatMap((r) => Object.values(r).filter((g) => g > 0)).length);
    expect(a.perQuery).toEqual(b.perQuery);
    expect(a.rankStats.bm25Indexes).toBe(2);
  }, 120_000);
});

function mkdirIn(dir: string): void {
  mkdirSync(join(dir, "in"), { recursive: true });
}
