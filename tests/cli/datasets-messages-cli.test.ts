/**
 * Messages a new user meets around datasets (real CLI where it is quick): `datasets list --mirror`
 * with a folder and with a URL mirror, a run naming every missing dataset at once, a mirror file
 * failing its checksum (kept, told once), E-utilities out of reach, BEIR's folder flag and
 * `corpus stats` on a folder. Every child gets an empty cache, no automatic mirror and a dead upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import YAML from "yaml";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { dataFileSources } from "../../corpus/datasets/sources.ts";
import { createEutilsClient } from "../../corpus/eutils.ts";
import { ensureBeirFolder } from "../../corpus/datasets/beir.ts";
import { unreachableEutilsAdvice } from "../../experiments/cli/datasets-commands.ts";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runCli, type CliResult } from "./run-cli.ts";

/** `runCli` without blocking this process (the URL mirror served from here must answer the child). */
function runCliAsync(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL("../../bin/medsynth.js", import.meta.url)), ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

let dir: string;
let dead: string;
let mirrorServer: Server;
let urlMirror: string;
/** The local data mirror the tests use (tests/helpers/datasets-setup.ts): folder of a registered file. */
const LOCAL_MIRROR = dirname(dirname(datasetFileSync("medevidence/med-evidence-abstract.jsonl")));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-ds-msg-"));
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
  // A URL mirror serving the registered files at <base>/<registry path>.
  const known = new Set(dataFileSources().map((s) => s.path));
  mirrorServer = createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? "/").slice(1));
    if (!known.has(rel)) return void res.writeHead(404).end();
    const p = datasetFileSync(rel);
    res.writeHead(200, { "content-length": statSync(p).size });
    if (req.method === "HEAD") return void res.end();
    createReadStream(p).pipe(res);
  });
  await new Promise<void>((r) => mirrorServer.listen(0, "127.0.0.1", r));
  urlMirror = `http://127.0.0.1:${(mirrorServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => mirrorServer.close(() => r()));
});

/** Environment of a fresh machine: empty cache, no mirror, an upstream that has nothing (HTTP 404: not retried, so the tests stay quick). */
function fresh(): Record<string, string> {
  return { MEDSYNTH_DATA_DIR: mkdtempSync(join(dir, "cache-")), MEDSYNTH_AUTO_MIRROR: "0", MEDSYNTH_DATA_MIRROR: "", MEDSYNTH_UPSTREAM_BASE: `${urlMirror}/no-upstream` };
}

const rowOf = (stdout: string, name: string) =>
  stdout
    .split("\n")
    .find((l) => l.startsWith(`${name} `))
    ?.split(/\s{2,}/) ?? [];

describe("datasets list with --mirror", () => {
  it("a folder mirror: exits 0, rows say mirror and items are counted from it (no upstream fetch)", async () => {
    const r = await runCliAsync(["datasets", "list", "--mirror", LOCAL_MIRROR], fresh());
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(rowOf(r.stdout, "medevidence").slice(0, 4)).toEqual(["medevidence", "synthesis", "284", "mirror"]);
    expect(rowOf(r.stdout, "pubmedqa").slice(0, 4)).toEqual(["pubmedqa", "conclusion", "1000", "mirror"]);
    expect(r.stdout).toContain(`mirrors: ${LOCAL_MIRROR}\n`);
  });

  it("a URL mirror: rows say url mirror (asked by HEAD requests), not missing; nothing is downloaded", async () => {
    const env = fresh();
    const r = await runCliAsync(["datasets", "list", "--mirror", urlMirror], env);
    expect(r.status).toBe(0);
    expect(rowOf(r.stdout, "medevidence").slice(0, 4)).toEqual(["medevidence", "synthesis", "-", "url mirror"]);
    expect(rowOf(r.stdout, "pubmed-xml").slice(0, 4)).toEqual(["pubmed-xml", "149", "4.5 MB", "url mirror"]);
    expect(r.stdout).not.toMatch(/ missing \(/);
    expect(existsSync(join(env.MEDSYNTH_DATA_DIR, "medevidence"))).toBe(false);
  });
});

describe("a run with several datasets missing", () => {
  it("names every missing dataset at once, before any work, exit 1", async () => {
    const cfgPath = join(dir, "two.yaml");
    writeFileSync(
      cfgPath,
      YAML.stringify({
        name: "two",
        output: join(dir, "run-two"),
        datasets: [{ name: "medmeta", sample: 1 }, { name: "medevidence", sample: 1 }, { name: "ms2" }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "golden-rag" }],
        metrics: ["rouge"],
      }),
    );
    const r = await runCliAsync(["run", cfgPath, "--no-progress"], fresh());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("3 datasets this run needs are not available: medmeta, medevidence, ms2 (nothing was run).");
    for (const d of ["medmeta", "medevidence", "ms2"]) expect(r.stderr).toContain(`dataset "${d}": `);
    expect(r.stderr).toContain("`node bin/medsynth.js datasets pull medmeta medevidence ms2`");
    expect(existsSync(join(dir, "run-two", "results.jsonl"))).toBe(false);
  });
});

describe("a folder-mirror file failing its checksum", () => {
  it("is reported once, as left in place (not deleted), and is still there", async () => {
    const bad = join(dir, "bad-mirror");
    mkdirSync(join(bad, "medmeta"), { recursive: true });
    const good = readFileSync(datasetFileSync("medmeta/MedMeta.csv"));
    const copy = Buffer.from(good);
    copy[10] ^= 0xff;
    writeFileSync(join(bad, "medmeta", "MedMeta.csv"), copy);
    writeFileSync(join(bad, "medmeta", "LICENSE"), readFileSync(datasetFileSync("medmeta/LICENSE")));
    const r = await runCliAsync(["datasets", "show", "medmeta", "--limit", "1"], { ...fresh(), MEDSYNTH_DATA_MIRROR: bad });
    expect(r.status).toBe(1);
    const mentions = r.stderr.split("\n").filter((l) => l.includes(join(bad, "medmeta", "MedMeta.csv")));
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toMatch(/expected sha256 [0-9a-f]{64}, got [0-9a-f]{64} \(left as it is; replace it with a good copy\)$/);
    expect(r.stderr).not.toMatch(/deleted/);
    expect(readFileSync(join(bad, "medmeta", "MedMeta.csv"))).toEqual(copy);

    // `datasets pull` (copy from the mirror): the message says the mirror file is kept.
    const p = await runCliAsync(["datasets", "pull", "medmeta", "--mirror", bad, "--no-progress"], fresh());
    expect(p.status).toBe(1);
    expect(p.stderr).toContain("not copied into the cache (the mirror's file is left as it is; replace it with a good copy)");
    expect(p.stderr.match(/failed its checksum/g)).toHaveLength(1);
  });
});

describe("messages naming the cause and the way round", () => {
  it("E-utilities out of reach: the cause (connection refused) and --base-url", async () => {
    const client = createEutilsClient({ apiKey: null, baseUrl: `${dead}/entrez/eutils/`, maxRetries: 0 });
    const e = await client.esearch({ term: "aspirin", retmax: 0 }).catch((x) => x);
    const advised = unreachableEutilsAdvice(e, "datasets prepare medmeta", `${dead}/entrez/eutils/`) as Error;
    expect(advised.message).toMatch(
      /^datasets prepare medmeta: NCBI E-utilities at http:\/\/127\.0\.0\.1:\d+\/entrez\/eutils\/ could not be reached: esearch\.fcgi .*: failed after 1 attempts: fetch failed \(ECONNREFUSED\)\. /,
    );
    expect(advised.message).toContain("point --base-url at an E-utilities mirror or proxy");
    // An HTTP answer (the server was reached) is not rewritten.
    const http = Object.assign(new Error("esearch: HTTP 400"), { name: "EutilsError", status: 400 });
    expect(unreachableEutilsAdvice(http, "x")).toBe(http);
  });

  it("BEIR download failure names --dataset-dir and the cause", async () => {
    const e = (await ensureBeirFolder("scifact", { cacheDir: mkdtempSync(join(dir, "beir-")), url: `${dead}/scifact.zip`, notice: () => {} }).catch((x) => x)) as Error;
    expect(e.message).toContain("failed (fetch failed (ECONNREFUSED))");
    expect(e.message).toContain("pass its folder with --dataset-dir <folder> (retrieval eval)");
    expect(e.message).not.toContain("dataset option dir");
  });

  it('--dataset-dir without a BEIR --dataset says what it goes with (it said: invalid options: Unrecognized key "dir")', () => {
    const r = runCli(["retrieval", "eval", "--dataset-dir", dir, "--mode", "bm25"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--dataset-dir names the folder of a BEIR dataset and goes with --dataset beir:<name> (e.g. --dataset beir:scifact --dataset-dir ${dir}); --dataset is medevidence`);
  });

  it("corpus stats on a folder names the folder", () => {
    const r = runCli(["corpus", "stats", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`medsynth: cannot read or open ${dir}: it is a folder, not a file (EISDIR)\n`);
  });
});
