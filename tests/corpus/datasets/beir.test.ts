/**
 * BEIR loader (issue 18.5) on a tiny fixture in BEIR's format (tests/fixtures/beir-tiny/:
 * corpus.jsonl, queries.jsonl, qrels/test.tsv with graded relevance and bad lines), the zip
 * reader on the same files zipped by Python's zipfile (tests/fixtures/beir-tiny.zip: deflated and
 * stored entries), the published-md5 check and the sha256 pin that refuses a changed archive,
 * fetching from a local HTTP server, and `retrieval eval` / `retrieval sweep` on the fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BEIR_SOURCES, BeirChecksumError, checkBeirArchive, ensureBeirFolder, loadBeirFolder, readBeirPins, unzip, type BeirSource } from "../../../corpus/datasets/beir.ts";
import { getDataset, loadDataset } from "../../../corpus/datasets/registry.ts";
import { planSweep } from "../../../experiments/sweep/config.ts";
import { runSweep } from "../../../experiments/sweep/run.ts";

const DIR = fileURLToPath(new URL("../../fixtures/beir-tiny", import.meta.url));
const ZIP = fileURLToPath(new URL("../../fixtures/beir-tiny.zip", import.meta.url));
const zipBytes = readFileSync(ZIP);
const md5 = createHash("md5").update(zipBytes).digest("hex");
const tiny: BeirSource = { name: "nfcorpus", url: "http://127.0.0.1:1/none.zip", md5, licence: "test", split: "test", description: "tiny" };

let tmp: string;
let server: Server;
let base: string;
const served = zipBytes;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "medsynth-beir-"));
  process.env.MEDSYNTH_CACHE_DIR = join(tmp, "cache");
  server = createServer((_req, res) => res.end(served));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("BEIR folder format", () => {
  it("reads docs, queries with judgments and graded qrels; skips and counts bad lines", () => {
    const ds = loadBeirFolder(DIR, "beir:tiny");
    expect(ds.docs!.map((d) => d.id)).toEqual(["d1", "d2", "d3", "d4", "d5"]);
    expect(ds.docs![0]).toEqual({ id: "d1", title: "Vitamin D and bone density", text: "Vitamin D supplementation increased bone mineral density in older adults." });
    expect(ds.qrels).toEqual({ q1: { d1: 2, d4: 1, d5: 0 }, q2: { d2: 1 }, q3: { d3: 2, d1: 0 } });
    expect(ds.items.map((t) => [t.id, t.query, t.relevant, t.judged])).toEqual([
      ["q1", "does vitamin d help bones in older adults", ["d1", "d4"], ["d1", "d4", "d5"]],
      ["q2", "statin side effects muscle", ["d2"], ["d2"]],
      ["q3", "coffee liver", ["d3"], ["d3", "d1"]],
    ]);
    expect(ds.skipped).toEqual({
      count: 4,
      reasons: { "corpus.jsonl: line is not JSON": 1, "corpus.jsonl: repeated _id": 1, "qrels/test.tsv: unknown query id": 1, "qrels/test.tsv: malformed line": 1 },
    });
    expect(ds.warnings).toEqual([expect.stringMatching(/qrels\/test\.tsv: 1 query id\(s\) not in queries\.jsonl \(first: "q9"\)/)]);
    expect(() => loadBeirFolder(DIR, "beir:tiny", "dev")).toThrow(/qrels\/dev\.tsv is missing/);
  });

  it("the registry lists nfcorpus, scifact and trec-covid with BEIR's published md5; dir loads a folder", async () => {
    expect(Object.fromEntries(Object.values(BEIR_SOURCES).map((b) => [b.name, b.md5]))).toEqual({
      nfcorpus: "a89dba18a62ef92f7d323ec890a0d38d",
      scifact: "5f7d1de60b170fc8027bb7898e2efca1",
      "trec-covid": "ce62140cb23feb9becf6270d0d1fe6d1",
    });
    expect(getDataset("beir:scifact").taskKind).toBe("qrels");
    const ds = await loadDataset("beir:nfcorpus", { dir: DIR });
    expect(ds.name).toBe("beir:nfcorpus");
    expect(Object.keys(ds.qrels!)).toEqual(["q1", "q2", "q3"]);
    await expect(loadDataset("beir:nfcorpus", { folder: DIR })).rejects.toThrow(/folder/);
  });
});

describe("archive: unzip, md5, pin", () => {
  it("unzips deflated and stored entries (Python zipfile)", () => {
    const files = unzip(zipBytes, "beir-tiny.zip");
    expect([...files.keys()]).toEqual(["nfcorpus/corpus.jsonl", "nfcorpus/queries.jsonl", "nfcorpus/qrels/test.tsv", "nfcorpus/stored.txt"]);
    expect(files.get("nfcorpus/qrels/test.tsv")!.equals(readFileSync(join(DIR, "qrels/test.tsv")))).toBe(true);
    expect(files.get("nfcorpus/stored.txt")!.toString()).toBe("stored entry");
    expect(() => unzip(Buffer.from("not a zip at all, just text"), "x.zip")).toThrow(/x\.zip: not a zip archive/);
  });

  it("checks the published md5, pins sha256 + size, refuses a later change", () => {
    expect(() => checkBeirArchive(BEIR_SOURCES.nfcorpus, zipBytes, undefined)).toThrow(new RegExp(`md5 ${md5} is not the published a89dba18a62ef92f7d323ec890a0d38d`));
    const pin = checkBeirArchive(tiny, zipBytes, undefined);
    expect(pin).toMatchObject({ sha256: createHash("sha256").update(zipBytes).digest("hex"), bytes: 1140, md5 });
    expect(checkBeirArchive(tiny, zipBytes, pin)).toBe(pin);
    expect(() => checkBeirArchive(tiny, zipBytes, { ...pin, sha256: "0".repeat(64) })).toThrow(BeirChecksumError);
  });

  it("fetches, verifies, pins and unpacks on first use; a changed cached archive is refused", async () => {
    const cache = join(tmp, "data");
    const notices: string[] = [];
    const dir = await ensureBeirFolder("nfcorpus", { cacheDir: cache, url: `${base}/nfcorpus.zip`, source: tiny, notice: (l) => notices.push(l) });
    expect(dir).toBe(join(cache, "beir", "nfcorpus"));
    expect(notices).toEqual([expect.stringMatching(/^medsynth: fetching BEIR nfcorpus from http:\/\/127\.0\.0\.1:\d+\/nfcorpus\.zip/)]);
    expect(readFileSync(join(dir, "corpus.jsonl"))).toEqual(readFileSync(join(DIR, "corpus.jsonl")));
    expect(readBeirPins(cache).nfcorpus).toMatchObject({ bytes: 1140, md5 });
    // Same bytes but a different pin (as if the archive had changed after the first download): refused.
    const pins = readBeirPins(cache);
    writeFileSync(join(cache, "beir", "pins.json"), JSON.stringify({ nfcorpus: { ...pins.nfcorpus, sha256: "f".repeat(64) } }));
    await expect(
      ensureBeirFolder("nfcorpus", { cacheDir: join(tmp, "data"), source: tiny, url: `${base}/x.zip` }).then(
        () => "used",
        (e: Error) => e.message,
      ),
    ).resolves.toMatch(/differs from the one pinned/);
  });
});

describe("retrieval sweep on a BEIR folder", () => {
  it("runs BM25 over the dataset's own documents with graded nDCG", async () => {
    const plan = planSweep({
      dataset: "beir:nfcorpus",
      datasetOptions: { dir: DIR },
      k: [1, 3],
      curveK: [1, 3],
      metric: "ndcg@3",
      settings: [{ name: "bm25", mode: "bm25" }],
      bootstrap: { iterations: 100 },
      randomization: { iterations: 100 },
    });
    expect(plan.corpus).toBe("dataset");
    const r = await runSweep(plan, { log: () => {} });
    expect(r.queries).toBe(3);
    expect(r.corpusDocs).toBe(5);
    // q2 "statin side effects muscle": only d2 mentions statins/muscle → rank 1, nDCG@3 = 1.
    expect(r.perQuery.bm25.q2["ndcg@3"]).toBe(1);
    // q3 "coffee liver": d3 (grade 2) first → nDCG@3 = 1 (d1 judged 0 adds no gain).
    expect(r.perQuery.bm25.q3["ndcg@3"]).toBe(1);
  });
});

describe("retrieval eval on a BEIR set", () => {
  it("searches the set's own corpus and scores graded qrels; a cached archive that is not BEIR's is refused", async () => {
    const { runRetrievalEval } = await import("../../../experiments/cli/retrieval-commands.ts");
    const o = {
      dataset: "beir:nfcorpus",
      corpus: "bundled",
      mode: "bm25",
      k: "3",
      embedder: "word-vectors",
      bm25Engine: "fast",
      fusion: "rrf",
      candidates: "100",
      index: "none",
      rerankCandidates: "50",
    };
    const err: string[] = [];
    const [r] = await runRetrievalEval(
      { ...o, datasetDir: DIR },
      () => {},
      (l) => err.push(l),
    );
    expect(err).toContain("corpus: the 5 documents of beir:nfcorpus");
    expect(r.ev.queries).toBe(3);
    expect(r.ev.perQuery.q2["ndcg@3"]).toBe(1);
    // The tiny archive, pinned above under its own md5, sits in the cache as nfcorpus.zip: BEIR's md5 check refuses it.
    const prev = process.env.MEDSYNTH_DATA_DIR;
    process.env.MEDSYNTH_DATA_DIR = join(tmp, "data");
    try {
      await expect(
        runRetrievalEval(
          o,
          () => {},
          () => {},
        ),
      ).rejects.toThrow(/is not the published a89dba18a62ef92f7d323ec890a0d38d/);
    } finally {
      if (prev === undefined) delete process.env.MEDSYNTH_DATA_DIR;
      else process.env.MEDSYNTH_DATA_DIR = prev;
    }
  });
});
