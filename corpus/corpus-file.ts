/**
 * Reading a retrieval corpus file: JSONL (or .jsonl.gz) lines that are CorpusDocs or PubmedRecords
 * (as written by `medsynth corpus ingest`), with malformed lines, deleted citations and repeated
 * ids skipped and counted; or the bundled corpus.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CorpusDocSchema, PubmedRecordSchema, type CorpusDoc } from "./types.ts";
import { recordToCorpusDoc } from "./conclusion-task.ts";
import { isPubmedRecordLine } from "./datasets/jsonl.ts";
import { readJsonl, zodIssuesText } from "./jsonl.ts";
import { loadBundledCorpus } from "./bundled-corpus.ts";
import { storeUriOf } from "./store/lance-store.ts";
import type { DocumentSource, RecordStore } from "./store/types.ts";
import { preparedDataDir } from "./datasets/files.ts";
import { medsynthCommand } from "./paths.ts";

/** Environment variable holding LanceDB storage options (a JSON object of strings) for corpus stores named by `--corpus`. */
export const STORAGE_OPTIONS_ENV = "MEDSYNTH_STORAGE_OPTIONS";

/**
 * Storage options for a corpus store from `$MEDSYNTH_STORAGE_OPTIONS` (JSON object of strings).
 * @returns the options, or undefined when the variable is unset or empty.
 * @throws Error naming the variable when it is not a JSON object of strings.
 */
export function storageOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> | undefined {
  const raw = env[STORAGE_OPTIONS_ENV];
  if (!raw) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new Error(`${STORAGE_OPTIONS_ENV} is not JSON (expected an object such as {"aws_region": "us-east-1"})`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v) || Object.values(v).some((x) => typeof x !== "string")) throw new Error(`${STORAGE_OPTIONS_ENV} must be a JSON object of string values`);
  return v as Record<string, string>;
}

/**
 * Open the corpus store a `--corpus` argument names (`lance:<folder or URI>`, or an `s3://`,
 * `gs://`, `az://` URI; storage options from {@link storageOptionsFromEnv}), or null when the
 * argument names no store ("bundled", a JSONL path). Reads nothing but the store's metadata.
 * @throws Error naming the URI when no finalised store is there (a local folder is checked before
 * connecting, so nothing is created there); naming `--corpus` when `lance:` has no folder.
 */
export async function openCorpusSource(corpus: string): Promise<RecordStore | null> {
  const uri = storeUriOf(corpus);
  if (uri === null) return null;
  if (uri.trim() === "") throw new Error(`--corpus ${JSON.stringify(corpus)}: no store folder after "lance:"; expected lance:<store folder> (or an s3://, gs://, az:// URI)`);
  const { openLanceRecordStore } = await import("./store/lance-store.ts");
  const storageOptions = storageOptionsFromEnv();
  return openLanceRecordStore({ uri, ...(storageOptions ? { storageOptions } : {}) });
}

/** Prefix of a corpus built by `medsynth datasets prepare <name>`: `prepared:medmeta`. */
export const PREPARED_CORPUS_PREFIX = "prepared:";

/**
 * Where a `prepared:<name>` corpus lives (`<data cache>/prepared/<name>/corpus.jsonl`, see {@link preparedDataDir}) and whether
 * it has been built; null for any other corpus setting.
 */
export function preparedCorpusPath(corpus: string): { name: string; path: string; exists: boolean } | null {
  if (!corpus.startsWith(PREPARED_CORPUS_PREFIX)) return null;
  const name = corpus.slice(PREPARED_CORPUS_PREFIX.length);
  const path = join(preparedDataDir(name), "corpus.jsonl");
  return { name, path, exists: existsSync(path) };
}

/** Result of {@link readCorpusFile}: the documents plus what was dropped. */
export interface CorpusFileRead {
  docs: CorpusDoc[];
  /** Lines read (blank lines included). */
  lines: number;
  /** Lines skipped as malformed (bad JSON, neither a CorpusDoc nor a PubmedRecord). */
  malformed: number;
  /** First malformed-line message ("file:line: field: problem"), or null. */
  firstMalformed: string | null;
  /** PubmedRecord lines flagged as deleted citations (skipped). */
  deleted: number;
  /** Lines whose id repeats an earlier line's id (skipped; the first one is kept). */
  duplicates: number;
  /** First repeated id, or null. */
  firstDuplicate: string | null;
}

/**
 * Read a corpus JSONL (`.jsonl` or `.jsonl.gz`) whose lines are {@link CorpusDoc}s (`{id, title, text}`),
 * {@link PubmedRecord}s (as written by `medsynth corpus ingest`, turned into docs by
 * {@link recordToCorpusDoc}) or MedRAG corpus lines (`{id, title, content, contents}`, e.g. MedRAG's
 * PubMed chunk files or `corpus rag-export`'s JSONL; {@link medragLineToDoc}); kinds may be mixed. Malformed lines and deleted citations are
 * skipped and counted; a repeated id keeps its first line and skips the rest (counted).
 * @throws Error naming the file when it does not exist.
 */
export async function readCorpusFile(path: string, label = "--corpus"): Promise<CorpusFileRead> {
  if (!existsSync(path)) throw new Error(`${label}: ${path} does not exist (use "bundled", lance:<store> or a corpus JSONL path or folder of them)`);
  const out: CorpusFileRead = { docs: [], lines: 0, malformed: 0, firstMalformed: null, deleted: 0, duplicates: 0, firstDuplicate: null };
  const stats = { lines: 0, records: 0, skipped: 0 };
  const seen = new Set<string>();
  const bad = (msg: string) => {
    out.malformed++;
    out.firstMalformed ??= msg;
  };
  // A folder (e.g. MedRAG's `chunk/` of PubMed files): its .jsonl / .jsonl.gz files in name order.
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.jsonl(\.gz)?$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0) {
    const xml = readdirSync(path).some((f) => /\.xml(\.gz)?$/i.test(f));
    const hint = xml ? `; it holds PubMed XML: ingest it into a store first (\`${medsynthCommand()} corpus ingest ${path} --store <store folder>\`), then give --corpus lance:<store folder>` : "";
    throw new Error(`${label}: ${path} is a folder without .jsonl / .jsonl.gz files${hint}`);
  }
  let linesBefore = 0;
  for (const file of files) {
    const fileStats = { lines: 0, records: 0, skipped: 0 };
    for await (const value of readJsonl<unknown>(file, { stats: fileStats, onWarning: (w) => bad(w.message) })) {
      stats.lines = linesBefore + fileStats.lines;
      const where = `${file}:${fileStats.lines}`;
      let doc: CorpusDoc;
      if (value && typeof value === "object" && !Array.isArray(value) && isPubmedRecordLine(value as Record<string, unknown>)) {
        const r = PubmedRecordSchema.safeParse(value);
        if (!r.success) {
          bad(`${where}: PubmedRecord ${zodIssuesText(r.error.issues)}`);
          continue;
        }
        if (r.data.flags.deleted) {
          out.deleted++;
          continue;
        }
        doc = recordToCorpusDoc(r.data);
      } else if (isMedragLine(value)) {
        const d = medragLineToDoc(value as Record<string, unknown>);
        if (typeof d === "string") {
          bad(`${where}: ${d}`);
          continue;
        }
        doc = d;
      } else {
        const r = CorpusDocSchema.safeParse(value);
        if (!r.success) {
          bad(`${where}: ${zodIssuesText(r.error.issues)} (expected a CorpusDoc {id, title, text}, a PubmedRecord or a MedRAG {id, title, content, contents} line)`);
          continue;
        }
        doc = r.data;
      }
      if (seen.has(doc.id)) {
        out.duplicates++;
        out.firstDuplicate ??= doc.id;
        continue;
      }
      seen.add(doc.id);
      out.docs.push(doc);
    }
    linesBefore += fileStats.lines;
    stats.lines = linesBefore;
  }
  out.lines = stats.lines;
  return out;
}

/**
 * Whether a JSONL value is a MedRAG corpus line (`{id, title, content, contents}`, PubMed chunk
 * files also carry `PMID`): an object with a string `content` or `contents` and no `text`.
 */
export function isMedragLine(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return !("text" in v) && (typeof v.content === "string" || typeof v.contents === "string");
}

/**
 * The {@link CorpusDoc} of a MedRAG corpus line: id = its `PMID` when present (MedRAG's PubMed
 * chunk files since 02/2024: `id` is then a snippet id such as "pubmed23n0001_0"), else `id`;
 * title = `title`; text = `content` (the abstract), or `contents` when there is no `content`.
 * @returns the document, or a message naming the bad field.
 */
export function medragLineToDoc(v: Record<string, unknown>): CorpusDoc | string {
  const rawId = v.PMID ?? v.pmid ?? v.id;
  if ((typeof rawId !== "string" && typeof rawId !== "number") || String(rawId).trim() === "") return `MedRAG line: id (or PMID) must be a non-empty string or number`;
  if (v.title !== undefined && typeof v.title !== "string") return `MedRAG line: title must be a string`;
  const text = typeof v.content === "string" ? v.content : (v.contents as string);
  return { id: String(rawId).trim(), title: (v.title as string | undefined) ?? "", text, source: "pubmed" };
}

/** A retrieval corpus as a command gets it: a streamed store, or documents in memory. */
export interface RetrievalCorpus {
  /** A corpus store (`lance:<uri>`, `s3://…`): never read whole here; engines stream it and fetch hits by id. */
  source?: DocumentSource;
  /** The documents, for every other corpus (bundled, JSONL, prepared). */
  docs?: CorpusDoc[];
  /** Number of documents. */
  count: number;
}

/**
 * Open the corpus named by `--corpus` for retrieval without materialising a store: a corpus store
 * comes back as a {@link DocumentSource} (only its metadata and row count are read;
 * `createRetriever` then picks its engine from the count and streams what it builds from); any
 * other corpus is loaded by {@link loadCorpusArg}.
 * @throws as {@link loadCorpusArg}; Error naming the store when it holds no document.
 */
export async function openRetrievalCorpus(corpus: string, log: (l: string) => void = (l) => console.error(l), label = "--corpus"): Promise<RetrievalCorpus> {
  const source = preparedCorpusPath(corpus) ? null : await openCorpusSource(corpus);
  if (source) {
    const count = await source.count();
    if (count === 0) throw new Error(`${label}: the corpus store ${corpus} holds no document`);
    const store = source as { docsFromRagTable?: boolean; meta?: { rag?: { fingerprint: string; unfinished?: boolean } | null } };
    const lean = store.docsFromRagTable ? ", documents from its lean RAG table" : "";
    log(`corpus: store ${corpus}, ${count} docs (streamed${lean}; documents fetched by id for hits)`);
    if (store.meta?.rag && store.docsFromRagTable === false)
      log(
        `note: the store's lean RAG table ${store.meta.rag.unfinished ? "is unfinished (a corpus rag-export was interrupted)" : "was written from an earlier state of the store"} and is not used; rerun \`${medsynthCommand()} corpus rag-export --store ${storeUriOf(corpus) ?? corpus}\` to use it again`,
      );
    return { source, count };
  }
  const docs = await loadCorpusArg(corpus, log, label);
  return { docs, count: docs.length };
}

/**
 * Load the corpus named by `--corpus`: `bundled`, `prepared:<name>` (built by `medsynth datasets
 * prepare <name>`, see {@link preparedCorpusPath}), a corpus store (`lance:<uri>`, `s3://…`; its
 * documents scanned in batches), or a JSONL path of CorpusDoc or PubmedRecord lines (see
 * {@link readCorpusFile}). Logs one line with the doc count, and a warning line for
 * skipped malformed lines and for repeated ids (first kept).
 * @throws Error naming the file when it is missing (for `prepared:`, naming the prepare command) or holds no usable document.
 */
export async function loadCorpusArg(corpus: string, log: (l: string) => void = (l) => console.error(l), label = "--corpus"): Promise<CorpusDoc[]> {
  const prepared = preparedCorpusPath(corpus);
  if (prepared) {
    if (!prepared.exists) throw new Error(`${label}: "${corpus}" has not been prepared on this machine (no ${prepared.path}); run \`${medsynthCommand()} datasets prepare ${prepared.name}\``);
    corpus = prepared.path;
  }
  const source = await openCorpusSource(corpus);
  if (source) {
    const docs: CorpusDoc[] = [];
    for await (const batch of source.scanDocs(5000)) docs.push(...batch);
    log(`corpus: store ${corpus}, ${docs.length} docs`);
    if (docs.length === 0) throw new Error(`${label}: the corpus store ${corpus} holds no document`);
    return docs;
  }
  if (corpus === "bundled") {
    const { docs, stats } = await loadBundledCorpus({ cache: true });
    log(
      `corpus: bundled, ${stats.total} docs (${Object.entries(stats.bySource)
        .map(([s, n]) => `${s} ${n}`)
        .join(", ")})`,
    );
    return docs;
  }
  const r = await readCorpusFile(corpus, label);
  log(`corpus: ${corpus}, ${r.docs.length} docs${r.deleted ? ` (${r.deleted} deleted citation(s) left out)` : ""}`);
  if (r.malformed) log(`warning: ${corpus}: ${r.malformed} malformed line(s) skipped (first: ${r.firstMalformed})`);
  if (r.duplicates) log(`warning: ${corpus}: ${r.duplicates} line(s) repeat an earlier id and were skipped, keeping the first (first repeated id: "${r.firstDuplicate}")`);
  if (r.docs.length === 0)
    throw new Error(
      `${label}: ${corpus} has no valid document (lines must be CorpusDoc {id, title, text} or PubmedRecord as written by \`${medsynthCommand()} corpus ingest\`)${r.firstMalformed ? `; first problem: ${r.firstMalformed}` : ""}`,
    );
  return r.docs;
}
