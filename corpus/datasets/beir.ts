/**
 * BEIR qrels datasets (issue 18.5): NFCorpus, SciFact and TREC-COVID as corpus + queries +
 * graded qrels, for `retrieval eval` and `retrieval sweep` (`--dataset beir:nfcorpus`).
 *
 * Format (BEIR's `GenericDataLoader`): a folder with `corpus.jsonl` (`{"_id", "title", "text",
 * "metadata"}`), `queries.jsonl` (`{"_id", "text", "metadata"}`) and `qrels/<split>.tsv`
 * (header `query-id corpus-id score`, one judgment per line, graded: TREC-COVID 0–2, NFCorpus
 * 1–2, SciFact 1; 0 = judged non-relevant). Malformed lines are skipped and counted; a qrels
 * line naming an unknown query is skipped with a warning.
 *
 * Where the files come from: `options.dir` (a folder you unzipped yourself), else the data cache
 * (`<dataCacheDir()>/beir/<name>/`), filled on first use from BEIR's archive
 * (`https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/<name>.zip`). These
 * archives are not in the local mirror and BEIR publishes only their md5 (the table of the BEIR
 * wiki "Datasets available"), not a sha256 or size, so the archive is checked against the
 * published md5 and, on the first download that passes, its sha256 and byte size are pinned in
 * `<dataCacheDir()>/beir/pins.json` ("trust on first use"). Every later use checks the archive
 * against that pin as well: a changed archive is refused, naming both hashes, never used silently.
 * Delete the pin entry to accept a new archive on purpose. See DATA-DECISIONS.md.
 */
import { fetchErrorText } from "../eutils.ts";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { inflateRawSync } from "node:zlib";
import { z } from "zod";
import type { CorpusDoc } from "../types.ts";
import type { Qrels, QrelsTopic } from "../qrels.ts";
import { dataCacheDir } from "./files.ts";
import { createSkipCounter, skippedOf, type LoadedDataset } from "./loaded-dataset.ts";

/** One BEIR archive: where it is, its published md5, its licence as BEIR's dataset card states it. */
export interface BeirSource {
  name: string;
  url: string;
  /** md5 of the zip as published in BEIR's dataset table. */
  md5: string;
  licence: string;
  /** Split whose qrels are read by default. */
  split: "test";
  description: string;
}

/** The BEIR datasets medsynth registers (biomedical ones with graded qrels). */
export const BEIR_SOURCES: Readonly<Record<string, BeirSource>> = Object.freeze({
  nfcorpus: {
    name: "nfcorpus",
    url: "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/nfcorpus.zip",
    md5: "a89dba18a62ef92f7d323ec890a0d38d",
    licence: "CC BY-SA 4.0 (BEIR dataset card); NFCorpus terms of its authors (Boteva et al. 2016)",
    split: "test",
    description: "BEIR NFCorpus: nutrition questions → PubMed abstracts, graded qrels (1–2); 323 test queries, 3.6k docs",
  },
  scifact: {
    name: "scifact",
    url: "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
    md5: "5f7d1de60b170fc8027bb7898e2efca1",
    licence: "CC BY-SA 4.0 (BEIR dataset card); SciFact CC BY 4.0, abstracts ODC-By 1.0 (Wadden et al. 2020)",
    split: "test",
    description: "BEIR SciFact: scientific claims → supporting abstracts; 300 test queries, 5.2k docs",
  },
  "trec-covid": {
    name: "trec-covid",
    url: "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/trec-covid.zip",
    md5: "ce62140cb23feb9becf6270d0d1fe6d1",
    licence: "CC BY-SA 4.0 (BEIR dataset card); CORD-19 licences of each article (Allen AI)",
    split: "test",
    description: "BEIR TREC-COVID: COVID-19 topics → CORD-19 abstracts, graded qrels (0–2); 50 queries, 171k docs (74 MB download)",
  },
});

/** Options of the BEIR loaders. */
export const BeirOptionsSchema = z
  .object({
    /** A BEIR folder (corpus.jsonl, queries.jsonl, qrels/) you already have; skips the cache and download. */
    dir: z.string().min(1).optional(),
    /** Qrels split (`qrels/<split>.tsv`). */
    split: z.string().min(1).default("test"),
    /** Data cache folder (default `dataCacheDir()`). */
    cacheDir: z.string().min(1).optional(),
    /** Where to fetch the archive (default BEIR's URL; e.g. a mirror of the same zip). */
    url: z.string().url().optional(),
  })
  .strict();
/** Options of {@link loadBeir} as a caller writes them. */
export type BeirOptions = z.input<typeof BeirOptionsSchema>;

/** A BEIR archive whose hash is not the published md5 or the pinned sha256. */
export class BeirChecksumError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BeirChecksumError";
  }
}

/** Pinned facts of a verified archive. */
export interface BeirPin {
  sha256: string;
  bytes: number;
  md5: string;
  url: string;
  pinnedAt: string;
}

function pinsPath(cache: string): string {
  return join(cache, "beir", "pins.json");
}

/** The pins file (`<cache>/beir/pins.json`): name → pin; {} when absent. */
export function readBeirPins(cacheDir = dataCacheDir()): Record<string, BeirPin> {
  const p = pinsPath(cacheDir);
  return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as Record<string, BeirPin>) : {};
}

/**
 * Check archive bytes against the published md5 and the pin (if any).
 * @returns the pin to keep (the existing one, or a new one to write).
 * @throws BeirChecksumError naming the expected and actual hashes.
 */
export function checkBeirArchive(src: BeirSource, bytes: Buffer, pin: BeirPin | undefined, url = src.url): BeirPin {
  const md5 = createHash("md5").update(bytes).digest("hex");
  if (md5 !== src.md5) throw new BeirChecksumError(`BEIR ${src.name}: archive md5 ${md5} is not the published ${src.md5} (${url}); refusing it`);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (pin && (pin.sha256 !== sha256 || pin.bytes !== bytes.length)) {
    throw new BeirChecksumError(
      `BEIR ${src.name}: archive sha256 ${sha256} (${bytes.length} bytes) differs from the one pinned on ${pin.pinnedAt} (${pin.sha256}, ${pin.bytes} bytes); refusing it. If the change is intended, delete "${src.name}" from the pins file.`,
    );
  }
  return pin ?? { sha256, bytes: bytes.length, md5, url, pinnedAt: new Date().toISOString() };
}

/**
 * Files of a zip archive (stored or deflated entries; no ZIP64, no encryption): path → bytes.
 * @throws Error naming the archive on a malformed zip or an unsupported entry.
 */
export function unzip(buf: Buffer, label = "zip"): Map<string, Buffer> {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${label}: not a zip archive (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${label}: malformed central directory entry ${n}`);
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith("/")) continue;
    if (compressed === 0xffffffff || size === 0xffffffff) throw new Error(`${label}: ${name} is a ZIP64 entry (not supported)`);
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`${label}: malformed local header of ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + compressed);
    if (method === 0) out.set(name, Buffer.from(data));
    else if (method === 8) out.set(name, inflateRawSync(data));
    else throw new Error(`${label}: ${name} uses compression method ${method} (only stored and deflate are supported)`);
    if (out.get(name)!.length !== size) throw new Error(`${label}: ${name} unpacked to ${out.get(name)!.length} bytes, expected ${size}`);
  }
  return out;
}

/**
 * The BEIR folder of `name` in the cache, downloading, verifying (published md5, then the pin),
 * pinning and unpacking the archive on first use (one line on stderr before a download).
 * An archive already in the cache is verified once per process.
 * @param opts `source`: an archive not in {@link BEIR_SOURCES} (its name, URL and published md5), e.g. another BEIR set.
 * @returns the folder holding corpus.jsonl, queries.jsonl and qrels/.
 * @throws BeirChecksumError on a hash mismatch; Error naming the URL when the download fails.
 */
export async function ensureBeirFolder(name: string, opts: { cacheDir?: string; url?: string; notice?: (l: string) => void; source?: BeirSource } = {}): Promise<string> {
  const src = opts.source ?? beirSource(name);
  const cache = resolve(opts.cacheDir ?? dataCacheDir());
  const root = join(cache, "beir");
  const zipPath = join(root, `${name}.zip`);
  const folder = join(root, name);
  const url = opts.url ?? src.url;
  const pins = readBeirPins(cache);
  let bytes: Buffer;
  if (existsSync(zipPath)) {
    if (pins[name] && verifiedThisProcess.get(zipPath) === `${src.md5}:${pins[name].sha256}` && existsSync(join(folder, "corpus.jsonl"))) return folder;
    bytes = readFileSync(zipPath);
  } else {
    (opts.notice ?? ((l) => process.stderr.write(`${l}\n`)))(`medsynth: fetching BEIR ${name} from ${url} into ${root} (checked against BEIR's published md5 ${src.md5})`);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(10 * 60_000) });
    } catch (e) {
      throw new Error(
        `BEIR ${name}: download from ${url} failed (${fetchErrorText(e)}); unzip the archive yourself and pass its folder with --dataset-dir <folder> (retrieval eval), or as the dataset's option dir in a config (options: { dir: <folder> })`,
      );
    }
    if (!res.ok)
      throw new Error(
        `BEIR ${name}: download from ${url} failed (HTTP ${res.status}); unzip the archive yourself and pass its folder with --dataset-dir <folder> (retrieval eval), or as the dataset's option dir in a config (options: { dir: <folder> })`,
      );
    bytes = Buffer.from(await res.arrayBuffer());
  }
  const pin = checkBeirArchive(src, bytes, pins[name], url);
  mkdirSync(root, { recursive: true });
  if (!pins[name]) writeFileSync(pinsPath(cache), JSON.stringify({ ...pins, [name]: pin }, null, 2) + "\n");
  if (!existsSync(zipPath)) {
    writeFileSync(`${zipPath}.part`, bytes);
    renameSync(`${zipPath}.part`, zipPath);
  }
  const marker = join(folder, `.unpacked-${pin.sha256.slice(0, 16)}`);
  if (!existsSync(marker)) {
    const tmp = `${folder}.part`;
    rmSync(tmp, { recursive: true, force: true });
    for (const [path, data] of unzip(bytes, zipPath)) {
      const rel = path.startsWith(`${name}/`) ? path.slice(name.length + 1) : path;
      if (rel === "" || rel.split("/").includes("..")) continue;
      mkdirSync(dirname(join(tmp, rel)), { recursive: true });
      writeFileSync(join(tmp, rel), data);
    }
    writeFileSync(join(tmp, `.unpacked-${pin.sha256.slice(0, 16)}`), "");
    rmSync(folder, { recursive: true, force: true });
    renameSync(tmp, folder);
  }
  verifiedThisProcess.set(zipPath, `${src.md5}:${pin.sha256}`);
  return folder;
}
/** Archive path → `md5:sha256` it was verified against in this process. */
const verifiedThisProcess = new Map<string, string>();

/** The registered BEIR source of `name`. @throws Error listing the valid names. */
export function beirSource(name: string): BeirSource {
  const s = Object.prototype.hasOwnProperty.call(BEIR_SOURCES, name) ? BEIR_SOURCES[name] : undefined;
  if (!s) throw new Error(`unknown BEIR dataset "${name}"; valid: ${Object.keys(BEIR_SOURCES).join(", ")}`);
  return s;
}

function jsonlLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "");
}

/**
 * Load a BEIR folder: documents, queries that have qrels in `split` (as {@link QrelsTopic}s:
 * `relevant` = grade > 0, `judged` = every judged doc) and the graded qrels.
 * @param dir the folder; `dataset` the name put on the items.
 * @throws Error naming the file when corpus.jsonl, queries.jsonl or qrels/<split>.tsv is missing,
 *   or the qrels header is not `query-id corpus-id score`.
 */
export function loadBeirFolder(dir: string, dataset: string, split = "test"): LoadedDataset<QrelsTopic> {
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const need = (rel: string) => {
    const p = join(dir, rel);
    if (!existsSync(p)) throw new Error(`${dataset}: ${p} is missing (a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
    return p;
  };
  const docs: CorpusDoc[] = [];
  const docIds = new Set<string>();
  for (const line of jsonlLines(need("corpus.jsonl"))) {
    let o: { _id?: unknown; title?: unknown; text?: unknown };
    try {
      o = JSON.parse(line);
    } catch {
      skipped.add("corpus.jsonl: line is not JSON");
      continue;
    }
    if ((typeof o._id !== "string" && typeof o._id !== "number") || typeof o.text !== "string") {
      skipped.add("corpus.jsonl: _id or text missing");
      continue;
    }
    const id = String(o._id);
    if (docIds.has(id)) {
      skipped.add("corpus.jsonl: repeated _id");
      continue;
    }
    docIds.add(id);
    docs.push({ id, title: typeof o.title === "string" ? o.title : "", text: o.text });
  }
  const queries = new Map<string, string>();
  for (const line of jsonlLines(need("queries.jsonl"))) {
    try {
      const o = JSON.parse(line) as { _id?: unknown; text?: unknown };
      if ((typeof o._id === "string" || typeof o._id === "number") && typeof o.text === "string" && o.text.trim() !== "") queries.set(String(o._id), o.text);
      else skipped.add("queries.jsonl: _id or text missing");
    } catch {
      skipped.add("queries.jsonl: line is not JSON");
    }
  }
  const qrelsFile = need(join("qrels", `${split}.tsv`));
  const lines = readFileSync(qrelsFile, "utf8")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "");
  if (!/^query-id\tcorpus-id\tscore$/.test(lines[0] ?? "")) throw new Error(`${qrelsFile}: first line must be the header "query-id<TAB>corpus-id<TAB>score"`);
  const qrels: Qrels = {};
  const unknownQueries = new Set<string>();
  lines.slice(1).forEach((l) => {
    const [q, d, s] = l.split("\t");
    const g = Number(s);
    if (!q || !d || !Number.isInteger(g) || g < 0) {
      skipped.add(`qrels/${split}.tsv: malformed line`);
      return;
    }
    if (!queries.has(q)) {
      unknownQueries.add(q);
      skipped.add(`qrels/${split}.tsv: unknown query id`);
      return;
    }
    (qrels[q] ??= {})[d] = g;
  });
  if (unknownQueries.size) warnings.push(`${qrelsFile}: ${unknownQueries.size} query id(s) not in queries.jsonl (first: "${[...unknownQueries][0]}"); their judgments are skipped`);
  const items: QrelsTopic[] = Object.keys(qrels).map((id) => ({
    id,
    dataset,
    query: queries.get(id)!,
    relevant: Object.keys(qrels[id]).filter((d) => qrels[id][d] > 0),
    judged: Object.keys(qrels[id]),
  }));
  return { name: dataset, taskKind: "qrels", items, warnings, skipped: skippedOf(skipped), docs, qrels };
}

/**
 * Load BEIR dataset `name` (`nfcorpus`, `scifact`, `trec-covid`): from `options.dir`, else the
 * cache folder, fetched and verified on first use ({@link ensureBeirFolder}).
 * @throws ZodError on bad options; the errors of {@link ensureBeirFolder} and {@link loadBeirFolder}.
 */
export async function loadBeir(name: string, options: BeirOptions = {}): Promise<LoadedDataset<QrelsTopic>> {
  const o = BeirOptionsSchema.parse(options);
  beirSource(name);
  const dir = o.dir ? resolve(o.dir) : await ensureBeirFolder(name, { cacheDir: o.cacheDir, url: o.url });
  return loadBeirFolder(dir, `beir:${name}`, o.split);
}

/** Whether the cache holds the unpacked BEIR folder of `name` (no hashing). */
export function beirInCache(name: string, cacheDir = dataCacheDir()): boolean {
  return existsSync(join(cacheDir, "beir", name, "corpus.jsonl"));
}
