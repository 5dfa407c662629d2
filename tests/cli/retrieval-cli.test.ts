/**
 * `medsynth search` / `retrieval eval` input handling: `corpus ingest` output as a corpus,
 * repeated ids, several modes and repeated K values, option errors naming the option, and the
 * warning when a reranker fails on every doc.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { writeJsonl } from "../../corpus/jsonl.ts";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID } from "../../retrieval/registry.ts";
import { loadCorpusArg, parseKList, runRetrievalEval, runSearch, type EvalCliOptions, type SearchCliOptions } from "../../experiments/cli/retrieval-commands.ts";
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
  await ingestPubmed(["pubmed1.xml", "pubmed2.xml", "pubmed4.xml", "pubmed5.xml"].map((f) => join(BIO, f)), { onRecord: (r) => void recs.push(r) });
  ingested = join(dir, "ingested.jsonl");
  await writeJsonl(ingested, recs);
});

describe("corpus files", () => {
  it("searches `corpus ingest` output (PubmedRecord lines), plain and .jsonl.gz", async () => {
    const gz = join(dir, "ingested.jsonl.gz");
    writeFileSync(gz, gzipSync(readFileSync(ingested)));
    for (const corpus of [ingested, gz]) {
      const err: string[] = [];
      const hits = await runSearch("telomere length pancreatic cancer", search({ corpus, k: "2" }), () => {}, (l) => err.push(l));
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
    writeFileSync(path, ['{"id":"a","title":"first a","text":"aspirin heart attack"}', '{"id":"a","title":"second a","text":"aspirin"}', '{"id":"b","title":"b","text":"statin"}', '{"id":"a","title":"third a","text":"aspirin aspirin"}', "{oops"].join("\n"));
    const err: string[] = [];
    const docs = await loadCorpusArg(path, (l) => err.push(l));
    expect(docs.map((d) => [d.id, d.title])).toEqual([["a", "first a"], ["b", "b"]]);
    expect(err).toEqual([
      `corpus: ${path}, 2 docs`,
      expect.stringMatching(new RegExp(`^warning: .*dup\\.jsonl: 1 malformed line\\(s\\) skipped \\(first: .*dup\\.jsonl:5: invalid JSON`)),
      `warning: ${path}: 2 line(s) repeat an earlier id and were skipped, keeping the first (first repeated id: "a")`,
    ]);
    const hits = await runSearch("aspirin", search({ corpus: path }), () => {}, () => {});
    expect(hits.map((h) => h.id)).toEqual(["a"]);
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
    const both = await runRetrievalEval(o("bm25,hybrid", "5,5"), (l) => out.push(l), () => {});
    expect(both.map((r) => r.retriever)).toEqual(["bm25-fast", "hybrid-rrf"]);
    const single = await runRetrievalEval(o("bm25", "5"), () => {}, () => {});
    expect(both[0].ev.mean["recall@5"]).toBe(single[0].ev.mean["recall@5"]);
    for (const r of both) for (const v of Object.values(r.ev.mean)) expect(v).toBeLessThanOrEqual(1);
    // one header + one k row per mode
    expect(out.filter((l) => /^5 /.test(l))).toHaveLength(2);
    expect(out.filter((l) => l.startsWith("medevidence: 284 queries, corpus 3340 docs, "))).toHaveLength(2);
  });
});

describe("option errors name the option", () => {
  const reject = (o: Partial<SearchCliOptions>) => runSearch("q", search({ corpus: "/nonexistent/corpus.jsonl", ...o }), () => {}, () => {});
  it("one line per problem, checked before the corpus is read", async () => {
    await expect(reject({ fusion: "foo" })).rejects.toThrow(/^--fusion: expected one of rrf, weighted \(got "foo"\)$/);
    await expect(reject({ bm25Engine: "foo" })).rejects.toThrow(/^--bm25-engine: expected one of fast, wink \(got "foo"\)$/);
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
    const hits = await runSearch("aspirin", search({ corpus: path, rerank: "llm-pointwise", chatModel: "openai:rr-test" }), (l) => out.push(l), (l) => err.push(l));
    expect(hits.map((h) => h.score)).toEqual([-Infinity, -Infinity]);
    const warning = err.find((l) => l.startsWith("warning: reranker"));
    expect(warning).toMatch(/^warning: reranker llm-pointwise:openai:rr-test failed to grade 2 of 2 doc\(s\) \(first error: .+\); they are ranked last with rerank score -Infinity$/);
    expect(server.chatRequests().length).toBeGreaterThanOrEqual(2);
  });
});
