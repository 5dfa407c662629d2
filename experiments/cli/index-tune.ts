/**
 * `medsynth index tune --corpus <corpus> --queries <file>`: choose the IVF `nprobes` of a built
 * on-disk ANN index from the user's questions (`retrieval/lance/ann-tune.ts`), store it with the
 * recall@10 measured on held-out questions, and print the recall-vs-nprobes curve. It never
 * builds: the index must exist (`index build --index ivf_pq`, or the first dense `search`).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, medsynthCommand } from "../../corpus/paths.ts";
import { openRetrievalCorpus } from "../../corpus/corpus-file.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { applyAnnTuning, tuneAnnOnQueries, type AnnTuneReport } from "../../retrieval/lance/ann-tune.ts";
import { IndexNotBuiltError, reachesRecall, type LanceAnnStore } from "../../retrieval/lance/disk-engines.ts";
import { chooseEngine, createRetriever, DISK_ENGINE_THRESHOLD, RetrieverConfigSchema } from "../../retrieval/registry.ts";
import { HELP_DEFAULT_RETRIEVER_EMBEDDER_ID } from "./help-ids.ts";
import { retrieverConfig, type RetrievalCliOptions } from "./retrieval-commands.ts";

/** Options of `index tune`. */
export interface IndexTuneCliOptions extends Pick<RetrievalCliOptions, "embedder" | "engine" | "diskDir" | "ann"> {
  /** `--corpus`: lance:<store> or a corpus JSONL (as `index build`). */
  corpus: string;
  /** Questions: JSON array (strings or {question|query|text}), JSONL of the same, or one per line. */
  queries: string;
  /** `--target`: recall@10 the tuning half must reach (default 0.95). */
  target?: string;
  /** `--held-out`: share of the questions held out (default 0.5). */
  heldOut?: string;
  /** `--dry-run`: measure and print, store nothing. */
  dryRun?: boolean;
  json?: boolean;
}

/** Keys a question object may hold its text under, in the order tried. */
const QUESTION_KEYS = ["question", "query", "text"] as const;

function questionOf(item: unknown, where: string): string {
  if (typeof item === "string") return item;
  if (item && typeof item === "object") {
    for (const k of QUESTION_KEYS) {
      const v = (item as Record<string, unknown>)[k];
      if (typeof v === "string") return v;
    }
  }
  throw new Error(`${where}: expected a string or an object with a "question", "query" or "text" string`);
}

/** How {@link readQuestionTexts} reads a file: by extension, else by its first character. */
function questionFileFormat(path: string, text: string): "json" | "jsonl" | "lines" {
  if (/\.json$/i.test(path)) return "json";
  if (/\.(jsonl|ndjson)$/i.test(path)) return "jsonl";
  const first = text.trimStart()[0];
  if (first === "[") return "json";
  if (first === "{") return "jsonl";
  return "lines";
}

/**
 * The question texts of a file: a JSON array (strings or objects with a `question`, `query` or
 * `text` string), JSON Lines of the same (`.jsonl` / `.ndjson`), or plain text, one question per
 * line. `.json` / `.jsonl` / `.ndjson` decide by extension; any other file is read as a JSON array
 * when it starts with `[`, as JSON Lines when it starts with `{`, else as lines. A leading BOM is
 * ignored; blank questions are skipped.
 * @throws Error naming the file (and the item or line) when it is missing, a folder, unparseable,
 *   of the wrong shape, or holds no question.
 */
export function readQuestionTexts(path: string): string[] {
  if (!existsSync(path)) throw new Error(`--queries: ${path} does not exist`);
  if (statSync(path).isDirectory()) throw new Error(`--queries: ${path} is a folder; expected a file of questions`);
  const raw = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  if (raw.trim() === "") throw new Error(`${path}: no question found (the file is empty)`);
  const format = questionFileFormat(path, raw);
  let items: string[];
  if (format === "json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of questions`);
    items = parsed.map((it, i) => questionOf(it, `${path}: item ${i}`));
  } else if (format === "jsonl") {
    items = [];
    raw.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (e) {
        throw new Error(`${path}: line ${i + 1}: not valid JSON (${(e as Error).message})`);
      }
      items.push(questionOf(parsed, `${path}: line ${i + 1}`));
    });
  } else items = raw.split("\n");
  const texts = items.map((t) => t.trim()).filter((t) => t !== "");
  if (texts.length === 0) throw new Error(`${path}: no question found`);
  return texts;
}

function shareOption(flag: string, text: string | undefined, fallback: number, maxInclusive: boolean): number {
  if (text === undefined) return fallback;
  const x = Number(text);
  if (text.trim() === "" || !Number.isFinite(x) || x <= 0 || (maxInclusive ? x > 1 : x >= 1)) throw new Error(`${flag}: expected a number in (0, 1${maxInclusive ? "]" : ")"} (got "${text}")`);
  return x;
}

/** The `index build` command that makes the index `index tune` needs, for this corpus and these options. */
function buildHint(o: IndexTuneCliOptions): string {
  const extra = [
    o.engine ? `--engine ${o.engine}` : "",
    o.ann ? `--ann ${o.ann}` : "",
    o.diskDir ? `--disk-dir ${o.diskDir}` : "",
    o.embedder && o.embedder !== HELP_DEFAULT_RETRIEVER_EMBEDDER_ID ? `--embedder ${o.embedder}` : "",
  ].filter(Boolean);
  return `${medsynthCommand()} index build --mode dense --corpus ${o.corpus}${extra.length ? ` ${extra.join(" ")}` : ""}`;
}

/**
 * Step: the corpus's built on-disk ANN index, opened and never built. Checked before anything is
 * embedded or written: the engine the corpus runs on (an in-memory corpus has no IVF index), and
 * a local index folder that exists.
 * @throws Error saying which `index build` command makes the index.
 */
async function openBuiltAnn(o: IndexTuneCliOptions, err: (l: string) => void): Promise<{ ann: LanceAnnStore; embed: (texts: string[]) => Promise<Float32Array[]> }> {
  const base = retrieverConfig(o, "dense");
  const parsed = RetrieverConfigSchema.parse(base);
  const corpus = await openRetrievalCorpus(o.corpus, err);
  const threshold = parsed.engineThreshold ?? DISK_ENGINE_THRESHOLD;
  const engine = chooseEngine(parsed.engine, corpus.count, threshold);
  if (engine === "memory")
    throw new Error(
      `index tune: ${o.corpus} (${corpus.count} docs) runs on the in-memory engine, which has no on-disk IVF index to tune: corpora from ${threshold.toLocaleString("en-US")} docs run on disk, or give --engine lance|disk here and to \`${buildHint({ ...o, engine: "lance" })}\``,
    );
  const dir = parsed.disk.dir ?? join(cacheDir(), "lancedb-disk");
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(dir) && !existsSync(dir)) throw new Error(`index tune: no on-disk index folder ${dir}; build the index first: ${buildHint(o)}`);
  const config = { ...base, disk: { ...base.disk, mode: "open" as const } };
  let r: Awaited<ReturnType<typeof createRetriever>>;
  try {
    r = await createRetriever(config, { ...(corpus.source ? { source: corpus.source } : { docs: corpus.docs as CorpusDoc[] }), log: err });
  } catch (e) {
    if (e instanceof IndexNotBuiltError) throw new Error(`index tune: ${e.what}; build it first: ${buildHint(o)}`);
    throw e;
  }
  const ann = r.store as Partial<LanceAnnStore> | undefined;
  if (!ann || typeof ann.updateMeta !== "function" || !ann.meta) throw new Error(`index tune: ${o.corpus} runs on engine "${r.engine}", which has no on-disk IVF index to tune`);
  const embedder = r.embedder!;
  return { ann: ann as LanceAnnStore, embed: (texts) => embedder.embed(texts) };
}

/** Step: the report as text lines. */
function reportLines(ann: LanceAnnStore, o: IndexTuneCliOptions, texts: readonly string[], report: AnnTuneReport, targetRecall: number): string[] {
  const t = report.tuning;
  const lines = [
    `index tune: ${ann.tableName} (${ann.meta.index}, ${ann.meta.numPartitions} partitions, ${ann.docCount} docs, ${ann.embedderId})`,
    `questions: ${texts.length} from ${o.queries} (${t.tuneQueries} tune, ${t.heldOutQueries} held out${report.zeroVectors ? `, ${report.zeroVectors} left out: zero vector` : ""})`,
    "nprobes  recall@10 tune  recall@10 held out   (in nprobes order; * = chosen)",
    ...[...t.curve]
      .sort((a, b) => a.nprobes - b.nprobes)
      .map((p) => `${String(p.nprobes).padStart(7)}  ${p.recallTune.toFixed(3).padStart(14)}  ${p.recallHeldOut.toFixed(3).padStart(18)}${p.nprobes === report.nprobes ? "  *" : ""}`),
  ];
  const notes: string[] = [];
  if (!report.reachedTarget) notes.push("NOT REACHED on the tuning questions even with every partition");
  else if (!reachesRecall(report.recallAt10HeldOut, targetRecall)) notes.push("below the target on the held-out questions");
  if (t.heldOutQueries < 20) notes.push(`only ${t.heldOutQueries} held-out question(s): a coarse figure`);
  if (t.tuneQueries < 20) notes.push(`nprobes chosen on only ${t.tuneQueries} question(s): a coarse choice (lower --held-out or give more questions)`);
  lines.push(
    `nprobes ${report.nprobes}: recall@10 ${report.recallAt10HeldOut.toFixed(3)} on the held-out questions (target ${targetRecall}${notes.length ? `; ${notes.join("; ")}` : ""}); ${o.dryRun ? "not stored (--dry-run)" : "stored: later searches use it"}`,
  );
  return lines;
}

/**
 * Run `index tune`: open the corpus's built ANN index (never build), embed the questions, tune,
 * store (unless `dryRun`) and print.
 * @returns the tuning report.
 * @throws Error on a bad option or question file, when the corpus has no built on-disk IVF index
 *   for this embedder (saying how to build it), or from the tuning ({@link tuneAnnOnQueries}).
 */
export async function indexTuneCommand(o: IndexTuneCliOptions, out: (l: string) => void = (l) => console.log(l), err: (l: string) => void = (l) => console.error(l)): Promise<AnnTuneReport> {
  const targetRecall = shareOption("--target", o.target, 0.95, true);
  const heldOutShare = shareOption("--held-out", o.heldOut, 0.5, false);
  const texts = readQuestionTexts(o.queries);
  const { ann, embed } = await openBuiltAnn(o, err);
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) vectors.push(...(await embed(texts.slice(i, i + 256))));
  const report = await tuneAnnOnQueries(ann, texts, vectors, o.queries, { targetRecall, heldOutShare }, err);
  if (!o.dryRun) await applyAnnTuning(ann, report);
  if (o.json)
    out(
      JSON.stringify({
        table: ann.tableName,
        dir: ann.dir,
        index: ann.meta.index,
        numPartitions: ann.meta.numPartitions,
        docCount: ann.docCount,
        embedderId: ann.embedderId,
        stored: !o.dryRun,
        ...report,
      }),
    );
  else for (const l of reportLines(ann, o, texts, report, targetRecall)) out(l);
  return report;
}
