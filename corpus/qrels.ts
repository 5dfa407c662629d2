/**
 * Relevance judgments (qrels) in the TREC sense: for each query, the documents judged relevant
 * and their gain. Retrieval metrics (recall@k, nDCG) read this shape.
 *
 * Convention: documents with gain > 0 are relevant; gain 0 means judged non-relevant (kept where
 * the source has such labels, e.g. Cohen 2006); a missing document means "not judged".
 */
import { z } from "zod";
import type { SynthesisTask } from "./types.ts";

/** queryId → docId → gain (integer ≥ 0; > 0 means relevant). */
export const QrelsSchema = z.record(z.string(), z.record(z.string(), z.number().int().min(0)));
/** queryId → docId → gain (integer ≥ 0; > 0 means relevant). */
export type Qrels = z.infer<typeof QrelsSchema>;

/**
 * One query of a qrels dataset (e.g. one Cohen 2006 drug-class review topic).
 * `relevant` lists the docIds with gain > 0 in `qrels[id]`; `judged` every docId the source
 * labelled (relevant or not), so unjudged documents can be told apart.
 */
export const QrelsTopicSchema = z
  .object({
    id: z.string().min(1),
    dataset: z.string(),
    /** Query text (for Cohen 2006: the review topic, e.g. "Urinary Incontinence"). */
    query: z.string().min(1),
    relevant: z.array(z.string()),
    judged: z.array(z.string()),
    meta: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .strict();
/** One query of a qrels dataset; see {@link QrelsTopicSchema}. */
export type QrelsTopic = z.infer<typeof QrelsTopicSchema>;

/**
 * Build qrels from topics: each topic's `relevant` docs get gain 1; with `judgedNonRelevant`
 * (default true) every other doc of `judged` gets gain 0 (judged non-relevant, e.g. Cohen 2006
 * records screened out), so exported qrels tell judged from unjudged as trec_eval expects.
 * Gain-0 entries change no metric (relevance is gain > 0).
 * @param topics validated topics; a duplicate topic id throws.
 * @throws Error naming the duplicate topic id.
 */
export function qrelsFromTopics(topics: QrelsTopic[], opts: { judgedNonRelevant?: boolean } = {}): Qrels {
  const qrels: Qrels = {};
  for (const t of topics) {
    if (qrels[t.id]) throw new Error(`qrels: duplicate query id "${t.id}"`);
    const rels: Record<string, number> = {};
    if (opts.judgedNonRelevant ?? true) for (const d of t.judged) rels[d] = 0;
    for (const d of t.relevant) rels[d] = 1;
    qrels[t.id] = rels;
  }
  return qrels;
}

/**
 * Qrels for MedEvidence-style synthesis tasks: query id = task id, relevant docs = the task's
 * golden PMIDs (MedEvidence `relevant_sources`), gain 1.
 * @param tasks synthesis tasks (e.g. from `loadMedEvidence`); tasks without golden PMIDs are left out.
 * @throws Error on a duplicate task id.
 */
export function buildSynthesisQrels(tasks: SynthesisTask[]): Qrels {
  const qrels: Qrels = {};
  for (const t of tasks) {
    if (qrels[t.id]) throw new Error(`qrels: duplicate task id "${t.id}"`);
    if (t.goldenPmids.length === 0) continue;
    qrels[t.id] = Object.fromEntries(t.goldenPmids.map((p) => [p, 1]));
  }
  return qrels;
}

/** Number of relevant (gain > 0) documents of one query; 0 for an unknown query. */
export function countRelevant(qrels: Qrels, queryId: string): number {
  return Object.values(qrels[queryId] ?? {}).filter((g) => g > 0).length;
}
