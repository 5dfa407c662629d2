/**
 * `--corpus lance:<store>` through the real CLI never materialises the corpus: a store holding
 * ~60 MB of abstract text is searched (on-disk index built from the store in batches) by a child
 * whose V8 heap is capped at 80 MB — loading the documents into the heap (what the commands did
 * before, `loadCorpusArg`) dies there. Reopening reads no document (the fingerprint comes from
 * the store's manifest), and the finalised store keeps one version per table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./run-cli.ts";
import { buildBulkyStore, type BulkyStore } from "../helpers/bulky-store.ts";
import { connectStore, openLanceRecordStore } from "../../corpus/store/lance-store.ts";
import { createRetriever } from "../../retrieval/registry.ts";

const HEAP_MB = 80;

describe("CLI on a Lance corpus store, streaming", () => {
  let dir: string;
  let store: BulkyStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-stream-"));
    // 3,000 records × 20,000 characters ≈ 60 MB of text: held as documents it exceeds the capped heap.
    store = await buildBulkyStore(dir, 3000, 20_000);
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the finalised store keeps only its current version of each table", async () => {
    const db = await connectStore({ uri: store.uri });
    const names = await db.tableNames();
    expect(names.sort()).toEqual(["manifest", "records", "store_meta"]);
    for (const name of names) expect((await (await db.openTable(name)).listVersions()).length, name).toBe(1);
  });

  it(`search --engine lance builds and queries the on-disk index under a ${HEAP_MB} MB heap; a rerun reopens it`, () => {
    const args = ["search", "cardiology", "--corpus", `lance:${store.uri}`, "--engine", "lance", "--disk-dir", join(dir, "idx"), "--k", "3", "--json"];
    const env = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };
    const first = runCli(args, { env });
    expect(first.stderr).not.toMatch(/heap out of memory/);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/corpus: store .*, 3000 docs \(streamed; documents fetched by id for hits\)/);
    expect(first.stderr).toMatch(/lance bm25: built FTS index/);
    const hits = JSON.parse(first.stdout) as { pmid: string; title: string }[];
    // Records 0, 7, 14, … are about cardiology (equal BM25 scores: LanceDB's full-text index may order
    // the ties differently from one build to the next, so only the topic is asserted here).
    expect(hits).toHaveLength(3);
    for (const h of hits) expect((Number(h.pmid) - 700000) % 7, h.pmid).toBe(0);
    expect(hits[0].title).toMatch(/^Bulky record \d+ about cardiology\.$/);
    const again = runCli(args, { env });
    expect(again.status).toBe(0);
    expect(again.stderr).not.toMatch(/built FTS index/);
    expect(JSON.parse(again.stdout)).toEqual(hits);
  }, 300_000);

  it(`retrieval eval on the store under a ${HEAP_MB} MB heap: the judged ids are looked up, not the corpus loaded`, () => {
    const r = runCli(
      ["retrieval", "eval", "--corpus", `lance:${store.uri}`, "--engine", "lance", "--disk-dir", join(dir, "idx"), "--mode", "bm25", "--dataset", "medevidence", "--k", "5", "--trec-depth", "5"],
      { env: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } },
    );
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.status).toBe(0);
    // MedEvidence's golden PMIDs are real ones: none is in this store.
    expect(r.stderr).toMatch(/warning: (\d+) of \1 relevant \(query, doc\) pairs name docs absent from the corpus/);
    expect(r.stdout).toMatch(/medevidence: \d+ queries, corpus 3000 docs, bm25-lance/);
  }, 300_000);

  it("reopening reads no document: the index is keyed by the store's manifest fingerprint", async () => {
    const src = await openLanceRecordStore({ uri: store.uri });
    const fp = await src.fingerprint();
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(src.counters.fetched).toBe(0);
    const r = await createRetriever({ mode: "bm25", engine: "lance", disk: { dir: join(dir, "idx") } }, { source: src, log: () => {} });
    expect(r.diskBm25!.info.built).toBe(false);
    // Opening fetched nothing (no rehash of the corpus text); a search fetches its hits only.
    expect(src.counters.fetched).toBe(0);
    const hits = await r.search("cardiology", 2);
    expect(hits).toHaveLength(2);
    for (const h of hits) expect((Number(h.id) - 700000) % 7, h.id).toBe(0);
    expect(src.counters.fetched).toBe(2);
    // Same store state, same fingerprint from a fresh handle.
    expect(await (await openLanceRecordStore({ uri: store.uri })).fingerprint()).toBe(fp);
  }, 120_000);
});
