/**
 * The dataset registry's downloads against a local HTTP server on 127.0.0.1 that serves the
 * registry's own files as if it were the upstream (raw GitHub layout `/<repo>/<commit>/<path>`) or
 * a URL mirror (`/<registry path>`): pull, checksum, resume, corrupted bytes, 404, 500, slow
 * responses, a read-only cache, and the registry's agreement with the data mirror's SOURCES.tsv.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  autoMirrorDir,
  datasetDir,
  datasetFile,
  datasetFileSync,
  DatasetUnavailableError,
  locateDataFile,
  pullDataFile,
  pullDatasets,
  type DataAccessOptions,
} from "../../../corpus/datasets/files.ts";
import { dataFileSources, encodePathSegments, getDataFileSource, parseSourcesTsv, upstreamUrl } from "../../../corpus/datasets/sources.ts";
import { CacheWriteError, downloadFile } from "../../../corpus/datasets/transfer.ts";
import { loadDataset } from "../../../corpus/datasets/registry.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** How the server answers one registry path (default: the whole file, honouring Range). */
type Behaviour =
  | { kind: "ok" }
  | { kind: "status"; status: number; times?: number } // `times` failures, then ok (default: always)
  | { kind: "truncate-once"; at: number }
  | { kind: "corrupt" }
  | { kind: "ignore-range" }
  | { kind: "hang"; times?: number } // never answers the first `times` requests (default: always)
  | { kind: "stall-once"; at: number }; // sends `at` bytes then goes silent, once

interface Req {
  rel: string;
  range: string | null;
}

let server: Server;
let base = "";
const files = new Map<string, Buffer>(); // registry path → bytes
const behaviours = new Map<string, Behaviour>();
const seen = new Map<string, number>();
const requests: Req[] = [];
const hanging: ServerResponse[] = [];

/** Registry files served (small ones, one with a space in its name). */
const SERVED = ["medmeta/MedMeta.csv", "medmeta/LICENSE", "pubmedqa/test_ground_truth.json", "rwe/ohdsi-hcq/COUNTS clean.csv", "pubmed-xml/biopython/pubmed1.xml", "pubmed-xml/biopython/pubmed2.xml"];

function relOf(url: string): string | null {
  const path = decodeURIComponent(url.split("?")[0]);
  for (const s of dataFileSources()) {
    if (path === `/${s.upstreamRepo}/${s.upstreamCommit}/${s.upstreamPath}` || path === `/mirror/${s.path}`) return s.path;
  }
  return null;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const rel = relOf(req.url ?? "");
  const range = (req.headers.range as string | undefined) ?? null;
  if (rel) requests.push({ rel, range });
  const body = rel ? files.get(rel) : undefined;
  if (!rel || !body) {
    res.writeHead(404).end("not found");
    return;
  }
  const n = (seen.get(rel) ?? 0) + 1;
  seen.set(rel, n);
  const b = behaviours.get(rel) ?? { kind: "ok" };
  if (b.kind === "status" && (b.times === undefined || n <= b.times)) {
    res.writeHead(b.status).end(`error ${b.status}`);
    return;
  }
  if (b.kind === "hang" && (b.times === undefined || n <= b.times)) {
    hanging.push(res);
    return;
  }
  let data = body;
  if (b.kind === "corrupt") {
    data = Buffer.from(body);
    data[10] ^= 0xff;
  }
  const m = /^bytes=(\d+)-$/.exec(range ?? "");
  if (m && b.kind !== "ignore-range") {
    const start = Number(m[1]);
    res.writeHead(206, { "Content-Range": `bytes ${start}-${data.length - 1}/${data.length}`, "Content-Length": data.length - start });
    res.end(data.subarray(start));
    return;
  }
  res.writeHead(200, { "Content-Length": data.length });
  if (b.kind === "truncate-once" && n === 1) {
    res.write(data.subarray(0, b.at), () => setTimeout(() => res.socket?.destroy(), 20));
    return;
  }
  if (b.kind === "stall-once" && n === 1) {
    res.write(data.subarray(0, b.at));
    hanging.push(res);
    return;
  }
  res.end(data);
}

beforeAll(async () => {
  for (const rel of SERVED) files.set(rel, readFileSync(await datasetFile(rel)));
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const r of hanging) r.socket?.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Fresh empty cache; no mirror; the local server as upstream; fast retries. */
function access(extra: Partial<DataAccessOptions> = {}): DataAccessOptions & { cacheDir: string } {
  const notices: string[] = [];
  return {
    cacheDir: mkdtempSync(join(tmpdir(), "medsynth-dl-")),
    mirrors: [],
    upstreamBase: base,
    notice: (l) => void notices.push(l),
    transfer: { retries: 2, backoffMs: 5, timeoutMs: 10_000 },
    ...extra,
  };
}

function reset(rel: string, b: Behaviour = { kind: "ok" }): void {
  behaviours.set(rel, b);
  seen.delete(rel);
  for (let i = requests.length - 1; i >= 0; i--) if (requests[i].rel === rel) requests.splice(i, 1);
}

const reqsFor = (rel: string) => requests.filter((r) => r.rel === rel);

describe("dataset downloads from a local upstream", () => {
  it("pulls a file into the cache under its registry path, verified, with no .part left", async () => {
    const rel = "medmeta/MedMeta.csv";
    reset(rel);
    const a = access();
    const lines: string[] = [];
    const p = await datasetFile(rel, { ...a, notice: (l) => void lines.push(l) });
    expect(p).toBe(join(a.cacheDir, rel));
    expect(sha(readFileSync(p))).toBe(getDataFileSource(rel).sha256);
    expect(readdirSync(join(a.cacheDir, "medmeta"))).toEqual(["MedMeta.csv"]);
    expect(lines).toEqual([`medsynth: fetching dataset "medmeta" file ${rel} (19.9 kB) from ${upstreamUrl(getDataFileSource(rel), base)} into ${a.cacheDir}`]);
    expect(locateDataFile(rel, a)).toEqual({ where: "cache", path: p });
    // second use: from the cache, no request
    const before = reqsFor(rel).length;
    expect(await datasetFile(rel, a)).toBe(p);
    expect(datasetFileSync(rel, a)).toBe(p);
    expect(reqsFor(rel).length).toBe(before);
  });

  it("url-encodes path segments (a space in the upstream path)", async () => {
    const rel = "rwe/ohdsi-hcq/COUNTS clean.csv";
    reset(rel);
    expect(upstreamUrl(getDataFileSource(rel), "https://x")).toBe(
      "https://x/OHDSI/ShinyDeploy/3805e36dfd3a3114d1ade755dda91d2c1eb968fc/Covid19EstimationHydroxychloroquine/staticOutput/COUNTS%20clean.csv",
    );
    const p = await datasetFile(rel, access());
    expect(sha(readFileSync(p))).toBe(getDataFileSource(rel).sha256);
  });

  it("resumes a partial file with an HTTP Range request", async () => {
    const rel = "pubmedqa/test_ground_truth.json";
    reset(rel);
    const a = access();
    const dest = join(a.cacheDir, rel);
    mkdirSync(join(a.cacheDir, "pubmedqa"), { recursive: true });
    writeFileSync(`${dest}.part`, files.get(rel)!.subarray(0, 4000)); // left by an interrupted transfer
    const r = await downloadFile(upstreamUrl(getDataFileSource(rel), base), dest, getDataFileSource(rel), a.transfer);
    expect(r).toEqual({ bytes: 11414, resumedFrom: 4000, attempts: 1 });
    expect(reqsFor(rel)).toEqual([{ rel, range: "bytes=4000-" }]);
    expect(sha(readFileSync(dest))).toBe(getDataFileSource(rel).sha256);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it("restarts from zero when the server ignores the Range header", async () => {
    const rel = "pubmedqa/test_ground_truth.json";
    reset(rel, { kind: "ignore-range" });
    const a = access();
    const dest = join(a.cacheDir, rel);
    mkdirSync(join(a.cacheDir, "pubmedqa"), { recursive: true });
    writeFileSync(`${dest}.part`, Buffer.from("stale partial bytes"));
    const r = await downloadFile(upstreamUrl(getDataFileSource(rel), base), dest, getDataFileSource(rel), a.transfer);
    expect(r).toEqual({ bytes: 11414, resumedFrom: 0, attempts: 1 });
    expect(sha(readFileSync(dest))).toBe(getDataFileSource(rel).sha256);
  });

  it("retries a transfer cut off mid-way and ends with the right bytes", async () => {
    const rel = "pubmedqa/test_ground_truth.json";
    reset(rel, { kind: "truncate-once", at: 5000 });
    const a = access();
    const p = await datasetFile(rel, a);
    expect(sha(readFileSync(p))).toBe(getDataFileSource(rel).sha256);
    const reqs = reqsFor(rel);
    expect(reqs.length).toBe(2);
    expect(reqs[0].range).toBeNull();
    // the retry resumes after whatever reached the disk (all 5,000 bytes, or none if the cut came first)
    expect([null, "bytes=5000-"]).toContain(reqs[1].range);
  });

  it("deletes a file whose sha256 does not match and names dataset, expected and actual sha256", async () => {
    const rel = "medmeta/MedMeta.csv";
    reset(rel, { kind: "corrupt" });
    const a = access();
    const bad = Buffer.from(files.get(rel)!);
    bad[10] ^= 0xff;
    const err = await datasetFile(rel, a).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetUnavailableError);
    expect(err.message).toContain(
      `dataset "medmeta": ${rel} from ${upstreamUrl(getDataFileSource(rel), base)} failed its checksum: expected sha256 ${getDataFileSource(rel).sha256}, got ${sha(bad)}; the downloaded copy was deleted`,
    );
    expect(err.message).toContain("node bin/medsynth.js datasets pull medmeta");
    expect(existsSync(join(a.cacheDir, "medmeta"))).toBe(false); // the empty dataset folder is removed too; neither the file nor a .part
    expect(reqsFor(rel).length).toBe(1); // a checksum mismatch is not retried
  });

  it("replaces a corrupted cache copy: deleted with a notice, fetched again", async () => {
    const rel = "medmeta/LICENSE";
    reset(rel);
    const lines: string[] = [];
    const a = { ...access(), notice: (l: string) => void lines.push(l) };
    const p = await datasetFile(rel, a);
    const good = readFileSync(p);
    const bad = Buffer.from(good);
    bad[0] ^= 0x01;
    writeFileSync(p, bad);
    const q = await datasetFile(rel, a);
    expect(q).toBe(p);
    expect(readFileSync(q).equals(good)).toBe(true);
    expect(lines).toContain(`medsynth: dataset "medmeta": deleted the cached ${rel} (expected sha256 ${getDataFileSource(rel).sha256}, got ${sha(bad)})`);
    expect(reqsFor(rel).length).toBe(2);
  });

  it("gives up at once on 404 with an error naming the URL, the dataset, its upstream and the pull command", async () => {
    const rel = "pubmed-xml/biopython/pubmed1.xml";
    reset(rel, { kind: "status", status: 404 });
    const a = access();
    const err = await datasetFile(rel, a).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetUnavailableError);
    const url = upstreamUrl(getDataFileSource(rel), base);
    expect(err.message).toBe(
      [
        `dataset "pubmed-xml": ${rel} is not available (cache: ${a.cacheDir}).`,
        `  - upstream: ${url}: HTTP 404 Not Found`,
        `Upstream: ${upstreamUrl(getDataFileSource(rel))}`,
        "Get it with `node bin/medsynth.js datasets pull pubmed-xml` where the network or a mirror is reachable, or point MEDSYNTH_DATA_MIRROR (or --mirror) at a folder or URL holding the files.",
      ].join("\n"),
    );
    expect(reqsFor(rel).length).toBe(1);
  });

  it("names the upstream once when the attempt that failed was the upstream itself", () => {
    const src = getDataFileSource("pubmed-xml/biopython/pubmed1.xml");
    const msg = new DatasetUnavailableError(src, [`upstream: ${upstreamUrl(src)}: request failed: fetch failed (ENOTFOUND)`], "/cache").message;
    expect(msg.split(upstreamUrl(src)).length - 1).toBe(1);
    expect(msg).not.toContain("Upstream:");
  });

  it("retries HTTP 500 with backoff and succeeds when the server recovers", async () => {
    const rel = "pubmed-xml/biopython/pubmed2.xml";
    reset(rel, { kind: "status", status: 500, times: 2 });
    const a = access();
    const dest = join(a.cacheDir, rel);
    const r = await downloadFile(upstreamUrl(getDataFileSource(rel), base), dest, getDataFileSource(rel), a.transfer);
    expect(r.attempts).toBe(3);
    expect(sha(readFileSync(dest))).toBe(getDataFileSource(rel).sha256);
  });

  it("after the retries are spent on HTTP 500, a clear error (retries + 1 requests)", async () => {
    const rel = "pubmed-xml/biopython/pubmed2.xml";
    reset(rel, { kind: "status", status: 500 });
    const err = await datasetFile(rel, access()).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetUnavailableError);
    expect(err.message).toContain(`  - upstream: ${upstreamUrl(getDataFileSource(rel), base)}: HTTP 500 Internal Server Error (gave up after 3 attempts)`);
    expect(reqsFor(rel).length).toBe(3);
  });

  it("times out a server that does not answer, retries, and succeeds when it answers", async () => {
    const rel = "medmeta/LICENSE";
    reset(rel, { kind: "hang", times: 1 });
    const quick = { retries: 2, backoffMs: 5, timeoutMs: 400 };
    const a = access({ transfer: quick });
    const r = await downloadFile(upstreamUrl(getDataFileSource(rel), base), join(a.cacheDir, rel), getDataFileSource(rel), quick);
    expect(r.attempts).toBeGreaterThanOrEqual(2);
    reset(rel, { kind: "hang" });
    const err = await datasetFile(rel, access({ transfer: quick })).catch((e) => e);
    expect(err.message).toContain(`: no response within 400 ms (gave up after 3 attempts)`);
  });

  it("recovers from a transfer that stalls mid-way", async () => {
    const rel = "pubmedqa/test_ground_truth.json";
    reset(rel, { kind: "stall-once", at: 6000 });
    const p = await datasetFile(rel, access({ transfer: { retries: 2, backoffMs: 5, timeoutMs: 400 } }));
    expect(sha(readFileSync(p))).toBe(getDataFileSource(rel).sha256);
    expect(reqsFor(rel).length).toBeGreaterThanOrEqual(2);
  });

  it("tries a URL mirror first and falls back to the upstream", async () => {
    const rel = "medmeta/MedMeta.csv";
    reset(rel);
    const a = access({ mirrors: [`${base}/mirror`] });
    const r = await pullDataFile(rel, a);
    expect(r).toMatchObject({ action: "downloaded", from: `${base}/mirror/${encodePathSegments(rel)}`, resumedFrom: 0 });
    const r2 = await pullDataFile("pubmed-xml/biopython/pubmed1.xml", { ...access(), mirrors: [`${base}/nowhere`] }).catch((e) => e);
    expect(r2.message).toContain(`  - mirror ${base}/nowhere: ${base}/nowhere/pubmed-xml/biopython/pubmed1.xml: HTTP 404 Not Found`);
  });

  it("copies from a local mirror folder on pull; datasetFile uses it in place", async () => {
    const a = access({ upstreamBase: null });
    const mirror = mkdtempSync(join(tmpdir(), "medsynth-mirror-"));
    mkdirSync(join(mirror, "medmeta"));
    for (const rel of ["medmeta/MedMeta.csv", "medmeta/LICENSE"]) writeFileSync(join(mirror, rel), files.get(rel)!);
    const m = { ...a, mirrors: [mirror] };
    expect(await datasetFile("medmeta/MedMeta.csv", m)).toBe(join(mirror, "medmeta/MedMeta.csv"));
    expect(await datasetDir("medmeta", m)).toBe(join(mirror, "medmeta"));
    expect(locateDataFile("medmeta/LICENSE", m)).toEqual({ where: "mirror", path: join(mirror, "medmeta/LICENSE") });
    const got = await pullDatasets(["medmeta"], m);
    expect(got.map((r) => [r.rel, r.action, r.from])).toEqual([
      ["medmeta/LICENSE", "copied", join(mirror, "medmeta/LICENSE")],
      ["medmeta/MedMeta.csv", "copied", join(mirror, "medmeta/MedMeta.csv")],
    ]);
    expect(locateDataFile("medmeta/LICENSE", m).where).toBe("cache");
    expect((await pullDatasets(["medmeta"], m)).map((r) => r.action)).toEqual(["present", "present"]);
  });

  it("with no mirror and no reachable upstream: the error names dataset, upstream and pull command; the sync variant never fetches", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const a = access({ upstreamBase: dead, transfer: { retries: 0 } });
    const err = await datasetFile("medmeta/MedMeta.csv", a).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetUnavailableError);
    expect(err.message).toMatch(/^dataset "medmeta": medmeta\/MedMeta\.csv is not available/);
    expect(err.message).toMatch(/request failed: fetch failed \(ECONNREFUSED\)/);
    expect(err.message).toContain("Upstream: https://raw.githubusercontent.com/hahuyhoang411/MedMeta/");
    expect(err.message).toContain("`node bin/medsynth.js datasets pull medmeta`");
    expect(existsSync(join(a.cacheDir!, "medmeta"))).toBe(false); // no empty dataset folder left behind
    expect(() => datasetFileSync("medmeta/MedMeta.csv", a)).toThrow(/cache: not downloaded[\s\S]*node bin\/medsynth\.js datasets pull medmeta/);
  });

  it("a cache folder that cannot be written gives an error naming the folder", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-ro-"));
    let cacheDir: string;
    if (process.getuid?.() === 0) {
      // root ignores permission bits: put the cache below a regular file instead
      writeFileSync(join(root, "file"), "x");
      cacheDir = join(root, "file", "cache");
    } else {
      cacheDir = join(root, "cache");
      mkdirSync(cacheDir);
      chmodSync(cacheDir, 0o555);
    }
    const err = await datasetFile("medmeta/MedMeta.csv", { ...access(), cacheDir }).catch((e) => e);
    expect(err).toBeInstanceOf(CacheWriteError);
    expect(err.message).toMatch(new RegExp(`^cannot write to the data cache folder ${cacheDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(/medmeta)?: E[A-Z]+ `));
    expect(err.message).toContain("set MEDSYNTH_DATA_DIR to a writable folder");
  });
});

describe("lazy pull on first use", () => {
  it("a loader pulls its file from the configured URL mirror into the cache with a one-line notice, then reads it from the cache", async () => {
    reset("medmeta/MedMeta.csv");
    const cache = mkdtempSync(join(tmpdir(), "medsynth-lazy-"));
    const saved = { ...process.env };
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    Object.assign(process.env, { MEDSYNTH_DATA_DIR: cache, MEDSYNTH_AUTO_MIRROR: "0", MEDSYNTH_DATA_MIRROR: `${base}/mirror` });
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const d = await loadDataset("medmeta");
      expect(d.items).toHaveLength(20);
      const again = await loadDataset("medmeta");
      expect(again.items).toHaveLength(20);
    } finally {
      process.stderr.write = write;
      for (const k of ["MEDSYNTH_DATA_DIR", "MEDSYNTH_AUTO_MIRROR", "MEDSYNTH_DATA_MIRROR"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    expect(lines).toEqual([`medsynth: fetching dataset "medmeta" file medmeta/MedMeta.csv (19.9 kB) from ${base}/mirror/medmeta/MedMeta.csv into ${cache}\n`]);
    expect(reqsFor("medmeta/MedMeta.csv")).toEqual([{ rel: "medmeta/MedMeta.csv", range: null }]);
    expect(existsSync(join(cache, "medmeta", "MedMeta.csv"))).toBe(true);
  });
});

describe("the registry", () => {
  it("parses its TSV and rejects malformed rows naming the line", () => {
    expect(dataFileSources().length).toBe(186);
    expect(new Set(dataFileSources().map((s) => s.dataset)).size).toBe(9);
    const head = "path\tbytes\tsha256\tdataset\tlicence\tupstream_repo\tupstream_commit\tupstream_path";
    expect(() => parseSourcesTsv(`${head}\na.txt\t12\tnothex\td\tMIT\to/r\t${"0".repeat(40)}\ta.txt\n`, "x.tsv")).toThrow(/^x\.tsv line 2: sha256: /);
    expect(() => parseSourcesTsv(`${head}\na.txt\t12\n`, "x.tsv")).toThrow("x.tsv line 2: expected 8 tab-separated fields, got 2");
  });

  const mirror = autoMirrorDir();
  const sourcesTsv = mirror ? join(mirror, "SOURCES.tsv") : null;
  it.skipIf(!sourcesTsv || !existsSync(sourcesTsv))("agrees with the data mirror's SOURCES.tsv on every file with an upstream (bytes, sha256, repository, commit, path)", () => {
    const rows = readFileSync(sourcesTsv!, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split("\t"));
    const withUpstream = rows.filter((c) => c[3] !== "-" && !c[5].includes("converted to CSV"));
    const key = (c: string[]) => c.slice(0, 6).join("\t");
    const ours = dataFileSources().map((s) => [s.path, String(s.bytes), s.sha256, s.upstreamRepo, s.upstreamCommit, s.upstreamPath]);
    expect(ours.map(key).sort()).toEqual(withUpstream.map(key).sort());
  });
});
