/**
 * `medsynth index tune --corpus <corpus> --queries <file>`: choose the IVF `nprobes` of a built
 * on-disk ANN index from the user's questions (`retrieval/lance/ann-tune.ts`), store it with the
 * recall@10 measured on held-out questions, and print the recall-vs-nprobes curve. It never
 * builds: the index must exist (`index build --index ivf_pq`, or the first dense `search`).
 */
import { existsSync, readFileSync } from "node:fs";
import { openRetrievalCorpus } from "../../corpus/corpus-file.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { applyAnnTuning, tuneAnnOnQueries, type AnnTuneReport } from "../../retrieval/lance/ann-tune.ts";
import type { LanceAnnStore } from "../../retrieval/lance/disk-engines.ts";
import { createRetriever } from "../../retrieval/registry.ts";
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

/**
 * The question texts of a file: a `.json` array (strings or objects with a `question`, `query` or
 * `text` string), a `.jsonl` file of the same, one per line, or plain text, one question per line.
 * Blank questions are skipped.
 * @throws Error naming the file (and the item or line) when it is missing, unparseable, of the
 *   wrong shape, or holds no question.
 */
export function readQuestionTexts(path: string): string[] {
  if (!existsSync(path)) throw new Error(`--queries: ${path} does not exist`);
  const raw = readFileSync(path, "utf8");
  let items: string[];
  if (/\.json$/i.test(path)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of questions`);
    items = parsed.map((it, i) => questionOf(it, `${path}: item ${i}`));
  } else if (/\.jsonl$/i.test(path)) {
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

/**
 * Run `index tune`: open the corpus's built ANN index (never build), embed the questions, tune,
 * store (unless `dryRun`) and print.
 * @returns the tuning report.
 * @throws Error on a bad option or question file, when the corpus has no built on-disk IVF index
 *   for this embedder, or from the tuning ({@link tuneAnnOnQueries}).
 */
export async function indexTuneCommand(o: IndexTuneCliOptions, out: (l: string) => void = (l) => console.log(l), err: (l: string) => void = (l) => console.error(l)): Promise<AnnTuneReport> {
  const targetRecall = shareOption("--target", o.target, 0.95, true);
  const heldOutShare = shareOption("--held-out", o.heldOut, 0.5, false);
  const texts = readQuestionTexts(o.queries);
  const base = retrieverConfig(o, "dense");
  const config = { ...base, disk: { ...base.disk, mode: "open" as const } };
  const corpus = await openRetrievalCorpus(o.corpus, err);
  const r = await createRetriever(config, { ...(corpus.source ? { source: corpus.source } : { docs: corpus.docs as CorpusDoc[] }), log: err });
  const store = r.store as Partial<LanceAnnStore> | undefined;
  if (!store || typeof store.updateMeta !== "function" || !store.meta)
    throw new Error(`index tune: ${o.corpus} runs on engine "${r.engine}", which has no on-disk IVF index to tune (corpora from 250,000 docs, or --engine lance|disk, with --ann ivf_pq|ivf_flat)`);
  const ann = store as LanceAnnStore;
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) vectors.push(...(await r.embedder!.embed(texts.slice(i, i + 256))));
  const report = await tuneAnnOnQueries(ann, texts, vectors, o.queries, { targetRecall, heldOutShare }, err);
  if (!o.dryRun) await applyAnnTuning(ann, report);
  if (o.json) out(JSON.stringify({ table: ann.tableName, dir: ann.dir, stored: !o.dryRun, ...report }));
  else {
    out(`index tune: ${ann.tableName} (${ann.meta.index}, ${ann.meta.numPartitions} partitions, ${ann.docCount} docs, ${ann.embedderId})`);
    out(
      `questions: ${texts.length} from ${o.queries} (${report.tuning.tuneQueries} tune, ${report.tuning.heldOutQueries} held out${report.zeroVectors ? `, ${report.zeroVectors} left out: zero vector` : ""})`,
    );
    out("nprobes  recall@10 tune  recall@10 held out");
    for (const p of report.tuning.curve) out(`${String(p.nprobes).padStart(7)}  ${p.recallTune.toFixed(3).padStart(14)}  ${p.recallHeldOut.toFixed(3).padStart(18)}`);
    out(
      `nprobes ${report.nprobes}: recall@10 ${report.recallAt10HeldOut.toFixed(3)} on the held-out questions (target ${targetRecall}${report.reachedTarget ? "" : ": NOT REACHED on the tuning questions even with every partition"}); ${o.dryRun ? "not stored (--dry-run)" : "stored: later searches use it"}`,
    );
  }
  return report;
}
