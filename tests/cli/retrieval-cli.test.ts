/**
 * `medsynth search` / `retrieval eval` input handling: `corpus ingest` output as a corpus,
 * repeated ids, several modes and repeated K values, option errors naming the option, and the
 * warning when a reranker fails on every doc.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { writeJsonl } from "../../corpus/jsonl.ts";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID, defaultRetrievalMode } from "../../retrieval/registry.ts";
import { compareRuns, loadCorpusArg, parseKList, runRetrievalEval, runRetrievalScore, runSearch, type EvalCliOptions, type SearchCliOptions } from "../../experiments/cli/retrieval-commands.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { runCli } from "./run-cli.ts";

const BIO = datasetDirSync("pubmed-xml/biopython");
const base = { mode: "bm25", embedder: DEFAULT_RETRIEVER_EMBEDDER_ID, bm25Engine: "fast", fusion: "rrf", candidates: "100", index: "none", rerankCandidates: "50" };
const search = (o: Partial<SearchCliOptions>): SearchCliOptions => ({ ...base, corpus: "bundled", k: "10", ...o });

let dir: string;
let ingested: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-retrieval-cli-"));
  process.env.MEDSYNTH_CACHE_DIR = join(dir, "cache");
  const recs: PubmedRecord[] = [];
  await ingestPubmed(
    ["pubmed1.xml", "pubmed2.xml", "pubmed4.xml", "pubmed5.xml"].map((f) => join(BIO, f)),
    { onRecord: (r) => void recs.push(r) },
  );
  ingested = join(dir, "ingested.jsonl");
  await writeJsonl(ingested, recs);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("corpus files", () => {
  it("searches `corpus ingest` output (PubmedRecord lines), plain and .jsonl.gz", async () => {
    const gz = join(dir, "ingested.jsonl.gz");
    writeFileSync(gz, gzipSync(readFileSync(ingested)));
    for (const corpus of [ingested, gz]) {
      const err: string[] = [];
      const hits = await runSearch(
        "telomere length pancreatic cancer",
        search({ corpus, k: "2" }),
        () => {},
        (l) => err.push(l),
      );
      expect(err[0]).toBe(`corpus: ${corpus}, 6 docs`);
      expect(hits[0].id).toBe("27797938");
      expect(hits[0].doc?.text.startsWith("OBJECTIVE: ")).toBe(true);
    }
  });

  it("the real CLI: `corpus ingest` then `search --corpus` on its output", () => {
    const out = join(dir, "cli-ingest.jsonl");
    const ing = runCli(["corpus", "ingest", join(BIO, "pubmed4.xml"), join(BIO, "pubmed5.xml"), "--out", out, "--no-progress"], { env: { MEDSYNTH_CACHE_DIR: join(dir, "cache") } });
    expect(ing.status).toBe(0);
    const r = runCli(["search", "telomere pancreatic", "--corpus", out, "--mode", "bm25", "--k", "1", "--json"], { env: { MEDSYNTH_CACHE_DIR: join(dir, "cache") } });
    expect(r.stderr).toContain(`corpus: ${out}, 2 docs`);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).map((h: { pmid: string }) => h.pmid)).toEqual(["27797938"]);
  });

  it("keeps the first of repeated ids, skips the rest and warns with the count", async () => {
    const path = join(dir, "dup.jsonl");
    writeFileSync(
      path,
      [
        '{"id":"a","title":"first a","text":"aspirin heart attack"}',
        '{"id":"a","title":"second a","text":"aspirin"}',
        '{"id":"b","title":"b","text":"statin"}',
        '{"id":"a","title":"third a","text":"aspirin aspirin"}',
        "{oops",
      ].join("\n"),
    );
    const err: string[] = [];
    const docs = await loadCorpusArg(path, (l) => err.push(l));
    expect(docs.map((d) => [d.id, d.title])).toEqual([
      ["a", "first a"],
      ["b", "b"],
    ]);
    expect(err).toEqual([
      `corpus: ${path}, 2 docs`,
      expect.stringMatching(new RegExp(`^warning: .*dup\\.jsonl: 1 malformed line\\(s\\) skipped \\(first: .*dup\\.jsonl:5: invalid JSON`)),
      `warning: ${path}: 2 line(s) repeat an earlier id and were skipped, keeping the first (first repeated id: "a")`,
    ]);
    const hits = await runSearch(
      "aspirin",
      search({ corpus: path }),
      () => {},
      () => {},
    );
    expect(hits.map((h) => h.id)).toEqual(["a"]);
  });
});

describe("a query the embedder cannot embed", () => {
  it("dense and hybrid say why the dense leg is empty (a zero vector); a query with known words gets no note", async () => {
    for (const [mode, what] of [
      ["dense", "no dense hits"],
      ["hybrid", "the hits are BM25's alone"],
    ] as const) {
      const err: string[] = [];
      const hits = await runSearch(
        "zzqx qqvv",
        search({ corpus: ingested, mode, k: "3" }),
        () => {},
        (l) => err.push(l),
      );
      if (mode === "dense") expect(hits).toEqual([]);
      // (6 docs are too few for corpus statistics: the embedder falls back to word-vectors:sg-100d-sif and says so)
      expect(err).toContain(`note: the query holds no word the embedder word-vectors:sg-100d-sif knows (a zero vector): ${what}`);
      const ok: string[] = [];
      await runSearch(
        "telomere length pancreatic cancer",
        search({ corpus: ingested, mode, k: "3" }),
        () => {},
        (l) => ok.push(l),
      );
      expect(ok.filter((l) => l.startsWith("note: the query holds no word"))).toEqual([]);
    }
  }, 60_000);

  it("a query of stop words only says no engine has a term to look up, whatever the mode (an embedder may embed stop words)", async () => {
    for (const mode of ["bm25", "dense", "hybrid"] as const) {
      const err: string[] = [];
      const hits = await runSearch(
        "the of and with",
        search({ corpus: ingested, mode, k: "3" }),
        () => {},
        (l) => err.push(l),
      );
      expect(hits).toEqual([]);
      expect(err).toContain("note: the query holds no searchable word (only stop words, or no letter or digit): every engine returns no hit for it");
      expect(err.filter((l) => l.includes("a zero vector"))).toEqual([]);
    }
  }, 60_000);
});

describe("default mode with the offline word-vector embedder", () => {
  it("search without --mode uses BM25 and says so once; the README example puts a relevant hit first", async () => {
    const { mode: _m, ...noMode } = search({ k: "3" });
    const err: string[] = [];
    const out: string[] = [];
    const hits = await runSearch(
      "Is mortality higher, lower, or the same when comparing rapid ART to standard initiation?",
      noMode as SearchCliOptions,
      (l) => out.push(l),
      (l) => err.push(l),
    );
    expect(err.filter((l) => l.startsWith("retrieval mode: bm25 (default with the offline word-vector embedder"))).toHaveLength(1);
    expect(out[0]).toBe("bm25-fast: 3 hit(s)");
    // MedEvidence question 19's relevant sources include both top hits.
    expect(hits.slice(0, 2).map((h) => h.id)).toEqual(["28742880", "27163694"]);
  });
  it("another embedder keeps the hybrid default", () => {
    expect(defaultRetrievalMode("transformers:Xenova/bge-small-en-v1.5").mode).toBe("hybrid");
    expect(defaultRetrievalMode(DEFAULT_RETRIEVER_EMBEDDER_ID).mode).toBe("bm25");
  });
});

describe("retrieval eval", () => {
  it("drops repeated K values", () => {
    expect(parseKList("5,5,10,5")).toEqual([5, 10]);
    expect(() => parseKList("5,,10")).toThrow(/--k must be positive integers/);
  });

  it("accepts a comma-separated list of modes and does not double-count a repeated k", async () => {
    const o = (mode: string, k: string): EvalCliOptions => ({ ...base, mode, k, corpus: "bundled", dataset: "medevidence" });
    const out: string[] = [];
    const both = await runRetrievalEval(
      o("bm25,hybrid", "5,5"),
      (l) => out.push(l),
      () => {},
    );
    expect(both.map((r) => r.retriever)).toEqual(["bm25-fast", "hybrid-rrf"]);
    const single = await runRetrievalEval(
      o("bm25", "5"),
      () => {},
      () => {},
    );
    expect(both[0].ev.mean["recall@5"]).toBe(single[0].ev.mean["recall@5"]);
    for (const r of both) for (const v of Object.values(r.ev.mean)) expect(v).toBeLessThanOrEqual(1);
    // one header + one k row per mode
    expect(out.filter((l) => /^5 /.test(l))).toHaveLength(2);
    expect(out.filter((l) => l.startsWith("medevidence: 284 queries, corpus 3340 docs, "))).toHaveLength(2);
    // MRR@k is named so; uncut MRR and MAP over the 100 hits retrieved; hybrid tested against bm25.
    expect(out.filter((l) => l.startsWith("k ") && l.includes("MRR@k"))).toHaveLength(2);
    expect(out.filter((l) => /^MRR \(uncut\) 0\.\d{4} {3}MAP 0\.\d{4}$/.test(l))).toHaveLength(2);
    for (const r of both) expect(r.ev.mean.mrr).toBeGreaterThanOrEqual(r.ev.mean["mrr@5"]);
    const cmp = out.findIndex((l) => l.startsWith("paired tests against bm25 over 284 queries"));
    expect(cmp).toBeGreaterThan(0);
    expect(out.slice(cmp + 2).filter((l) => l.startsWith("hybrid vs bm25"))).toHaveLength(4); // recall@5, ndcg@5, mrr@5, map
  }, 300_000);
});

describe("paired tests between modes and `retrieval score`", () => {
  it("compareRuns: per-query differences, paired t, exact randomisation p, Holm across the table", () => {
    // Three queries; B − A on m = [0.5, 0.5, 1] (mean 2/3, SD √(1/12)), on z = [0, 0, 0].
    const A = { q1: { m: 0, z: 1 }, q2: { m: 0.5, z: 1 }, q3: { m: 0, z: 1 } };
    const B = { q1: { m: 0.5, z: 1 }, q2: { m: 1, z: 1 }, q3: { m: 1, z: 1 } };
    const [m, z] = compareRuns(
      [
        { label: "A", perQuery: A },
        { label: "B", perQuery: B },
      ],
      ["m", "z"],
    );
    expect(m).toMatchObject({ baseline: "A", mode: "B", metric: "m", n: 3, status: "ok" });
    expect(m.meanDiff).toBeCloseTo(2 / 3, 15);
    expect(m.t).toBeCloseTo(2 / 3 / Math.sqrt(1 / 12 / 3), 12); // = 4
    // Sign flips of [0.5, 0.5, 1]: |sum| ≥ 2 only for all + or all − → 2/8.
    expect(m.pRandomization).toBe(0.25);
    expect(z).toMatchObject({ status: "constant-differences", pRandomization: 1 });
    expect(z.t).toBeNaN();
    // Holm over the two randomisation p-values [0.25, 1] → [0.5, 1]; the t family has one finite p.
    expect(m.pRandomizationHolm).toBe(0.5);
    expect(m.pTHolm).toBe(m.pT);
  });

  it("scores an external TREC run read the trec_eval way (ties by docno descending)", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-score-"));
    try {
      // q1: tie of a and b at 0.5 → trec_eval order b, a; relevant a → MRR 1/2, AP 1/2.
      // q2: c (relevant, grade 2) first → MRR 1, AP (1 + 2/3)/2 with e relevant at rank 3.
      writeFileSync(join(dir, "run"), "q1 Q0 a 1 0.5 x\nq1 Q0 b 2 0.5 x\nq2 Q0 c 1 3 x\nq2 Q0 d 2 2 x\nq2 Q0 e 3 1 x\n");
      writeFileSync(join(dir, "qrels"), "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 e 1\nq3 0 z 0\n");
      const out: string[] = [];
      const ev = runRetrievalScore(join(dir, "run"), join(dir, "qrels"), { k: "1,3" }, (l) => out.push(l));
      expect(ev.queries).toBe(2);
      expect(ev.skippedNoRelevant).toEqual(["q3"]);
      expect(ev.perQuery.q1).toMatchObject({ "mrr@1": 0, mrr: 0.5, map: 0.5, "recall@3": 1 });
      expect(ev.perQuery.q2.map).toBeCloseTo((1 + 2 / 3) / 2, 15);
      expect(ev.mean.mrr).toBe(0.75);
      expect(out[0]).toBe(`${join(dir, "run")} (x): 2 judged queries`);
      expect(out).toContain(`MRR (uncut) 0.7500   MAP ${((0.5 + (1 + 2 / 3) / 2) / 2).toFixed(4)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("option errors name the option", () => {
  const reject = (o: Partial<SearchCliOptions>) =>
    runSearch(
      "q",
      search({ corpus: "/nonexistent/corpus.jsonl", ...o }),
      () => {},
      () => {},
    );
  it("one line per problem, checked before the corpus is read", async () => {
    await expect(reject({ fusion: "foo" })).rejects.toThrow(/^--fusion: expected one of rrf, weighted \(got "foo"\)$/);
    await expect(reject({ bm25Engine: "foo" })).rejects.toThrow(/^--bm25-engine: expected one of fast, wink, disk \(got "foo"\)$/);
    await expect(reject({ index: "foo" })).rejects.toThrow(/^--index: expected one of none, hnsw_sq, ivf_pq \(got "foo"\)$/);
    await expect(reject({ candidates: "0" })).rejects.toThrow(/^--candidates: expected a number > 0 \(got "0"\)$/);
    await expect(reject({ fusion: "foo", index: "bar" })).rejects.toThrow(/^--fusion: expected one of rrf, weighted \(got "foo"\)\n--index: expected one of none, hnsw_sq, ivf_pq \(got "bar"\)$/);
    await expect(reject({ k: "0" })).rejects.toThrow(/^--k must be a positive integer \(got "0"\)$/);
    await expect(reject({ mode: "bm25,hybrid" })).rejects.toThrow(/^--mode: expected one of bm25, dense, hybrid, lance-hybrid \(got "bm25,hybrid"\)/);
  });

  it("the real CLI prints the line and exits 1", () => {
    const r = runCli(["search", "q", "--fusion", "foo"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('medsynth: --fusion: expected one of rrf, weighted (got "foo")\n');
  });
});

describe("reranker failures", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ status: 400 }));
  });
  afterAll(async () => server.close());

  it("prints a warning with the first error and the count when llm-pointwise grades no doc", async () => {
    const path = join(dir, "rr.jsonl");
    writeFileSync(path, ['{"id":"a","title":"A","text":"aspirin heart"}', '{"id":"b","title":"B","text":"aspirin stroke"}', '{"id":"c","title":"C","text":"statin"}'].join("\n"));
    Object.assign(process.env, { MEDSYNTH_OPENAI_BASE_URL: server.baseURL, MEDSYNTH_OPENAI_API_KEY_ENV: "RR_TEST_KEY", RR_TEST_KEY: "sk-test", MEDSYNTH_OPENAI_MAX_RETRIES: "0" });
    const err: string[] = [];
    const out: string[] = [];
    const hits = await runSearch(
      "aspirin",
      search({ corpus: path, rerank: "llm-pointwise", chatModel: "openai:rr-test" }),
      (l) => out.push(l),
      (l) => err.push(l),
    );
    expect(hits.map((h) => h.score)).toEqual([-Infinity, -Infinity]);
    const warning = err.find((l) => l.startsWith("warning: reranker"));
    expect(warning).toMatch(/^warning: reranker llm-pointwise:openai:rr-test failed to grade 2 of 2 doc\(s\) \(first error: .+\); they are ranked last with rerank score -Infinity$/);
    expect(server.chatRequests().length).toBeGreaterThanOrEqual(2);
  });
});
