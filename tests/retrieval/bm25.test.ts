import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CorpusDoc } from "../../corpus/types.ts";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { buildBm25 } from "../../retrieval/bm25/build.ts";
import { buildFastBm25, readFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import type { Bm25Engine } from "../../retrieval/bm25/params.ts";
import { buildWinkBm25, loadWinkBm25 } from "../../retrieval/bm25/wink-engine.ts";
import { corpusContentHash } from "../../retrieval/content-hash.ts";

/** Four tiny docs whose analyzed tokens are their words (no stop words, stems = words). */
const FOUR: CorpusDoc[] = [
  { id: "d1", title: "", text: "aspirin aspirin heart" }, // dl 3
  { id: "d2", title: "", text: "heart pain" }, // dl 2
  { id: "d3", title: "", text: "fever" }, // dl 1
  { id: "d4", title: "", text: "pain pain fever dose" }, // dl 4
];
// N = 4, avgdl = (3+2+1+4)/4 = 2.5, k1 = 1.5, b = 0.75.
// df: aspirin 1, heart 2, pain 2, fever 2, dose 1.
// idf(df=1) = ln(1 + (4 − 1 + 0.5)/(1 + 0.5)) = ln(3.333333) = 1.2039728043
// idf(df=2) = ln(1 + (4 − 2 + 0.5)/(2 + 0.5)) = ln(2)        = 0.6931471806
// norm(dl)  = k1·(1 − b + b·dl/avgdl): dl 3 → 1.5·(0.25 + 0.9) = 1.725; dl 2 → 1.5·0.85 = 1.275; dl 4 → 1.5·1.45 = 2.175
// s = idf · tf·(k1+1)/(tf + norm)
// "aspirin heart" on d1: 1.2039728·(2·2.5)/(2 + 1.725) = 1.2039728·1.3422819 = 1.6160708783
//                      + 0.6931472·(1·2.5)/(1 + 1.725) = 0.6931472·0.9174312 = 0.6359148446  → 2.2519857228
// "aspirin heart" on d2: 0.6931472·2.5/(1 + 1.275) = 0.6931472·1.0989011 = 0.7617001984
// "pain" on d4: 0.6931472·(2·2.5)/(2 + 2.175) = 0.6931472·1.1976048 = 0.8301163839; on d2: 0.7617001984
const P = { k1: 1.5, b: 0.75 };

function engines(docs: CorpusDoc[], params: object = P): [string, Bm25Engine][] {
  const pruned = buildFastBm25(docs, params);
  pruned.strategy = "pruned"; // force MaxScore whatever the query
  return [
    ["fast", buildFastBm25(docs, params)],
    ["fast (pruned)", pruned],
    ["wink", buildWinkBm25(docs, params)],
  ];
}

describe.each(engines(FOUR))("BM25 %s engine on a hand-computed 4-doc corpus", (_name, e) => {
  it("scores 'aspirin heart' as computed by hand", async () => {
    const hits = await e.search("aspirin heart", 10);
    expect(hits.map((h) => h.id)).toEqual(["d1", "d2"]);
    expect(hits[0].score).toBeCloseTo(2.2519857228, 8);
    expect(hits[1].score).toBeCloseTo(0.7617001984, 8);
    expect(hits.map((h) => h.rank)).toEqual([1, 2]);
    expect(hits[0].scores?.bm25).toBe(hits[0].score);
    expect(hits[0].doc?.text).toBe("aspirin aspirin heart");
  });

  it("scores 'pain' (tf 2 in a long doc vs tf 1 in a short one)", () => {
    const hits = e.searchSync("Pain", 10);
    expect(hits.map((h) => [h.id, +h.score.toFixed(9)])).toEqual([
      ["d4", 0.830116384],
      ["d2", 0.761700198],
    ]);
  });

  it("a repeated query term counts again (d4: 2 × 0.8301163839 = 1.6602327678)", () => {
    expect(e.searchSync("pain pains", 1)[0].score).toBeCloseTo(1.6602327678, 8);
  });

  it("respects k and returns [] for empty, stop-word-only and unknown queries or k ≤ 0", () => {
    expect(e.searchSync("aspirin heart pain fever dose", 2)).toHaveLength(2);
    expect(e.searchSync("", 10)).toEqual([]);
    expect(e.searchSync("the of and", 10)).toEqual([]);
    expect(e.searchSync("zebra", 10)).toEqual([]);
    expect(e.searchSync("pain", 0)).toEqual([]);
  });

  it("reports corpus facts", () => {
    expect(e.info.docCount).toBe(4);
    expect(e.info.vocabSize).toBe(5);
    expect(e.info.avgDocLength).toBeCloseTo(2.5, 12);
  });
});

describe("BM25F field weights", () => {
  // title weight 2: d1 = {title "Aspirin", text "aspirin heart"} → tf(aspirin) = 2·1 + 1 = 3, dl = 2·1 + 2 = 4;
  // others as above (dl 2, 1, 4) → avgdl = 11/4 = 2.75. norm(4) = 1.5·(0.25 + 0.75·4/2.75) = 2.0113636
  // s(aspirin, d1) = 1.2039728·(3·2.5)/(3 + 2.0113636) = 1.2039728·1.4965986 = 1.8018640609
  const docs: CorpusDoc[] = [{ id: "d1", title: "Aspirin", text: "aspirin heart" }, ...FOUR.slice(1)];
  it.each(engines(docs, { ...P, fieldWeights: { title: 2, text: 1 } }))("%s weights the title twice", (_n, e) => {
    expect(e.searchSync("aspirin", 5)[0].score).toBeCloseTo(1.8018640609, 8);
  });
});

function medEvidenceDocs(): CorpusDoc[] {
  const byId = new Map<string, CorpusDoc>();
  const lines = readFileSync(datasetFileSync("medevidence/med-evidence-abstract.jsonl"), "utf8").split("\n");
  for (const line of lines) {
    if (!line.trim()) continue;
    const q = JSON.parse(line) as { sources: Record<string, { title?: string; content?: string }> };
    for (const [pmid, s] of Object.entries(q.sources)) byId.set(pmid, { id: pmid, title: s.title ?? "", text: s.content ?? "" });
  }
  return [...byId.values()];
}

describe("both engines agree on real abstracts (MedEvidence sources)", () => {
  const docs = medEvidenceDocs();
  const fast = buildFastBm25(docs, P);
  const wink = buildWinkBm25(docs, P);
  const queries = [
    "Is the long-term rate of lymphocyst formation higher with retroperitoneal drainage?",
    "aspirin for primary prevention of cardiovascular events in older adults",
    "randomised trial of insulin glargine versus NPH insulin in type 2 diabetes",
    "vitamin D supplementation fractures",
  ];
  it("has 329 abstracts", () => expect(docs).toHaveLength(329));
  it.each(queries)("same ids and scores (|Δ| < 1e-6) for %s", (q) => {
    const a = fast.searchSync(q, 1000);
    const b = wink.searchSync(q, 1000);
    expect(a.length).toBeGreaterThan(10);
    expect(a.length).toBe(b.length);
    const wm = new Map(b.map((h) => [h.id, h.score]));
    for (const h of a) expect(Math.abs(h.score - (wm.get(h.id) ?? Infinity))).toBeLessThan(1e-6);
    // Same top-10 up to ties.
    expect(a.slice(0, 10).map((h) => h.score.toFixed(5))).toEqual(b.slice(0, 10).map((h) => h.score.toFixed(5)));
  });
});

describe("persistence and caching", () => {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-bm25-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fast engine round-trips through split array files (parts of ≤ 16 bytes) and reads them back", () => {
    const e = buildFastBm25(FOUR, P, { contentHash: corpusContentHash(FOUR) });
    const at = join(dir, "split");
    e.writeTo(at, { partBytes: 16 });
    // 8 postings × 4 bytes = 32 bytes of post-docs → 2 parts; 6 Float64 offsets = 48 bytes → 3 parts;
    // 4 doc ids "d1".."d4" = 8 UTF-8 bytes → 1 part.
    const sizes = (stem: string) =>
      readdirSync(at)
        .filter((f) => f.startsWith(`${stem}.`))
        .sort()
        .map((f) => statSync(join(at, f)).size);
    expect(sizes("post-docs")).toEqual([16, 16]);
    expect(sizes("offsets")).toEqual([16, 16, 16]);
    expect(sizes("ids-utf8")).toEqual([8]);
    const back = readFastBm25(at);
    expect(back.searchSync("aspirin heart", 10).map((h) => [h.id, h.score])).toEqual(e.searchSync("aspirin heart", 10).map((h) => [h.id, h.score]));
    expect(back.ids).toEqual(["d1", "d2", "d3", "d4"]);
    expect(back.info.contentHash).toBe(corpusContentHash(FOUR));
    expect(back.info.avgDocLength).toBeCloseTo(2.5, 12);
    // A missing or short part is an error naming the file, never a partial index.
    truncateSync(join(at, "post-docs.1"), 12);
    expect(() => readFastBm25(at)).toThrow(/truncated|ended early/);
    rmSync(join(at, "post-docs.1"));
    expect(() => readFastBm25(at)).toThrow(/post-docs\.1 is missing/);
    expect(() => readFastBm25(join(dir, "nowhere"))).toThrow(/cannot read .*header\.json/);
    // Bad params in the header are an error naming the header and the field.
    const good = join(dir, "good");
    e.writeTo(good);
    const header = JSON.parse(readFileSync(join(good, "header.json"), "utf8"));
    writeFileSync(join(good, "header.json"), JSON.stringify({ ...header, params: { ...header.params, b: 2 } }));
    expect(() => readFastBm25(good)).toThrow(/good\/header\.json is corrupt \(BM25 params: b must be a number in \[0, 1\], got 2\)/);
  });

  it("stores tf as uint8 when integral (field weights 1) and float32 otherwise (title weight 1.5); both read back", () => {
    const at = (name: string) => join(dir, name);
    buildFastBm25(FOUR, P).writeTo(at("tf8"));
    const tfType = (d: string) => JSON.parse(readFileSync(join(d, "header.json"), "utf8")).arrays.find((a: { name: string }) => a.name === "post-tf").type;
    expect(tfType(at("tf8"))).toBe("uint8");
    // Title weight 1.5, d1 = {title "Aspirin", text "aspirin heart"}: tf(aspirin) = 1.5 + 1 = 2.5,
    // dl = 1.5 + 2 = 3.5; others dl 2, 1, 4 → avgdl = 10.5/4 = 2.625; norm(3.5) = 1.5·(0.25 + 0.75·3.5/2.625) = 1.875;
    // s = 1.2039728043·(2.5·2.5)/(2.5 + 1.875) = 1.7199611490
    const docs: CorpusDoc[] = [{ id: "d1", title: "Aspirin", text: "aspirin heart" }, ...FOUR.slice(1)];
    const e = buildFastBm25(docs, { ...P, fieldWeights: { title: 1.5, text: 1 } });
    e.writeTo(at("tf32"));
    expect(tfType(at("tf32"))).toBe("float32");
    for (const x of [e, readFastBm25(at("tf32"))]) expect(x.searchSync("aspirin", 5)[0].score).toBeCloseTo(1.719961149, 9);
    expect(
      readFastBm25(at("tf8"))
        .searchSync("pain", 5)
        .map((h) => [h.id, +h.score.toFixed(10)]),
    ).toEqual([
      ["d4", 0.8301163839],
      ["d2", 0.7617001984],
    ]);
  });

  it("ids (UTF-8, decoded per hit) survive a round trip; attachDocs matches docs by id in any order or subset", () => {
    const docs: CorpusDoc[] = [
      { id: "é-1", title: "", text: "pain pain" },
      { id: "文献-2", title: "", text: "pain fever" },
      { id: "x3", title: "", text: "fever" },
    ];
    const e = buildFastBm25(docs, P);
    e.writeTo(join(dir, "utf8-ids"));
    const back = readFastBm25(join(dir, "utf8-ids"));
    expect(back.ids).toEqual(["é-1", "文献-2", "x3"]);
    expect(back.searchSync("pain", 5).map((h) => [h.id, h.doc?.id])).toEqual([
      ["é-1", undefined],
      ["文献-2", undefined],
    ]);
    back.attachDocs([docs[2], docs[0]]); // a subset, out of order
    expect(back.searchSync("pain fever", 5).map((h) => [h.id, h.doc?.text])).toEqual([
      ["文献-2", undefined],
      ["é-1", "pain pain"],
      ["x3", "fever"],
    ]);
    back.attachDocs(docs); // same order as indexed
    expect(back.searchSync("fever", 1)[0].doc).toBe(docs[2]);
  });

  it("an unreadable cache entry is an error naming it, never a silent rebuild", () => {
    const root = join(dir, "broken");
    const first = buildBm25(FOUR, { engine: "fast", ...P }, { cacheRoot: root, partBytes: 8 });
    expect(first.fromCache).toBe(false);
    writeFileSync(join(first.cachePath!, "header.json"), "{ not json");
    expect(() => buildBm25(FOUR, { engine: "fast", ...P }, { cacheRoot: root })).toThrow(/cached BM25 index .* cannot be read.*delete it to rebuild/);
    const wink = buildBm25(FOUR, { engine: "wink", ...P }, { cacheRoot: root });
    writeFileSync(wink.cachePath!, "garbage");
    expect(() => buildBm25(FOUR, { engine: "wink", ...P }, { cacheRoot: root })).toThrow(/cannot be read.*delete it to rebuild/);
  });

  it("wink engine reloads with exportJSON/importJSON and the analyzer re-attached", () => {
    const e = buildWinkBm25(FOUR, P);
    const back = loadWinkBm25(e.exportJSON());
    expect(back.searchSync("ASPIRIN hearts", 10).map((h) => [h.id, +h.score.toFixed(8)])).toEqual([
      ["d1", 2.25198572],
      ["d2", 0.7617002],
    ]);
  });

  it("wink refuses < 3 docs with a clear error; fast handles 0 and 1 docs", () => {
    expect(() => buildWinkBm25(FOUR.slice(0, 2))).toThrow(/at least 3 documents.*"fast"/);
    expect(buildFastBm25([]).searchSync("pain", 5)).toEqual([]);
    // One doc: N = 1, df = 1 → idf = ln(1 + 0.5/1.5) = 0.2876821; dl = avgdl = 2 → norm = k1 = 1.5;
    // s = 0.2876821·(1·2.5)/(1 + 1.5) = 0.2876821
    expect(buildFastBm25([FOUR[1]], P).searchSync("pain", 5)[0].score).toBeCloseTo(0.2876820725, 9);
  });

  it("fast engine breaks score ties by corpus order", () => {
    const twins: CorpusDoc[] = [{ id: "z", title: "", text: "pain" }, { id: "a", title: "", text: "pain" }, FOUR[2]];
    expect(
      buildFastBm25(twins)
        .searchSync("pain", 5)
        .map((h) => h.id),
    ).toEqual(["z", "a"]);
  });

  it("duplicate ids throw naming the id", () => {
    expect(() => buildFastBm25([FOUR[0], FOUR[0]])).toThrow(/duplicate doc id "d1"/);
    expect(() => buildWinkBm25([FOUR[0], FOUR[1], FOUR[0]])).toThrow(/duplicate doc id "d1"/);
  });

  it.each(["fast", "wink"] as const)("buildBm25(%s) rebuilds only when the content hash changes", (engine) => {
    const first = buildBm25(FOUR, { engine, ...P }, { cacheRoot: dir });
    expect(first.fromCache).toBe(false);
    const second = buildBm25(FOUR, { engine, ...P }, { cacheRoot: dir });
    expect(second.fromCache).toBe(true);
    expect(second.engine.info.engine).toBe(engine);
    expect(second.engine.searchSync("pain", 2)[0].doc?.id).toBe("d4");
    const changed = FOUR.map((d) => (d.id === "d3" ? { ...d, text: "fever dose" } : d));
    const third = buildBm25(changed, { engine, ...P }, { cacheRoot: dir });
    expect(third.fromCache).toBe(false);
    expect(third.contentHash).not.toBe(first.contentHash);
    expect(buildBm25(FOUR, { engine, k1: 1.2 }, { cacheRoot: dir }).fromCache).toBe(false);
    expect(() => buildBm25(FOUR, { engine, k3: 1 } as never, { cacheRoot: dir })).toThrow();
  });
});
