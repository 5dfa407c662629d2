/**
 * The item page's data: one item's question and reference, then every cell of that item (all
 * runs, workflows, models, parameters) with the evidence it used (rank, score, the queries that
 * found each abstract, golden ones marked), Negated-RAG's original → negated sentences, P-CoT's
 * plan, sub-questions, drafts and self-evaluation scores, and each judge's verdict with its
 * rationale — or, when the verdict is missing, the raw answer and the reason.
 * Everything here is plain data; the browser renders it as text (never as HTML).
 */
import type { JudgeScoreEntry, RunRecord } from "../results/run-record.ts";
import { paramsLabel, recordsOf, rowIdOf, type RunIndex } from "./run-index.ts";

/** One abstract a cell's workflow used. */
export interface EvidenceView {
  id: string;
  /** Best (smallest) rank over the queries that found it; null when the workflow did not retrieve. */
  rank: number | null;
  /** Retrieval score at the best rank; null when not retrieved. */
  score: number | null;
  /** The queries that found it with their rank and score. */
  queries: { query: string; rank: number; score: number }[];
  /** True when the item's golden evidence (as given to Golden-RAG, or `itemMeta.goldenPmids`) contains it. */
  golden: boolean;
  /** Sentences the synthesis took from this abstract (extractive baseline), when recorded. */
  sentences: string[];
}

/** A judge verdict as shown. */
export interface JudgeView {
  judgeId: string;
  rubricId: string;
  status: "ok" | "missing";
  scores: Record<string, number | null>;
  /** The judge's rationale when its answer parsed and carried one. */
  rationale: string | null;
  /** The raw answer when the verdict is missing (or no rationale could be read). */
  raw: string | null;
  /** Why the verdict is missing. */
  error: string | null;
}

/** One cell of the item. */
export interface CellView {
  rowId: number;
  run: string;
  key: string;
  model: string;
  workflow: string;
  params: string;
  repeat: number;
  status: RunRecord["status"];
  output: string | null;
  /** The output was kept although cut off at the output limit (endpoint `onTruncated: keep-marked`). */
  truncated: boolean;
  error: string | null;
  generator: RunRecord["generator"];
  evidence: EvidenceView[];
  /** Negated-RAG: per negated abstract, the changed sentences. */
  negation: { id: string; changed: { original: string; negated: string; mode: string }[] }[] | null;
  /** P-CoT: the plan, sub-questions, drafts and self-evaluation scores. */
  pcot: { plan: unknown; questions: { round: number; question: string }[]; drafts: string[]; scores: number[]; stopReason: string | null } | null;
  /** Retrieval queries Standard-RAG wrote. */
  queries: string[];
  judges: JudgeView[];
  panel: RunRecord["panel"] | null;
  metrics: Record<string, number | null>;
  labels: Record<string, string>;
}

/** The item page. */
export interface ItemView {
  itemId: string;
  dataset: string;
  /** Question or title (itemMeta.question / title), when known. */
  question: string | null;
  reference: string | null;
  itemMeta: Record<string, string | number | null>;
  goldenIds: string[];
  cells: CellView[];
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string | null => (typeof v === "string" ? v : v === undefined || v === null ? null : JSON.stringify(v));

/** The golden evidence ids of an item: itemMeta.goldenPmids / goldenIds, else what Golden-RAG was given. */
export function goldenIdsOf(records: readonly RunRecord[]): string[] {
  const ids = new Set<string>();
  for (const r of records) {
    for (const f of ["goldenPmids", "goldenIds"]) {
      const v = (r.itemMeta as Record<string, unknown> | undefined)?.[f];
      if (typeof v === "string")
        v.split(/[;,\s]+/)
          .filter(Boolean)
          .forEach((x) => ids.add(x));
    }
    if (r.workflow === "golden-rag") for (const id of asArray(r.intermediate?.evidenceIds)) ids.add(String(id));
  }
  return [...ids];
}

/** The evidence of one cell with provenance; see {@link EvidenceView}. */
export function evidenceOf(r: RunRecord, golden: ReadonlySet<string>): EvidenceView[] {
  const inter = (r.intermediate ?? {}) as Record<string, unknown>;
  const sentences = new Map<string, string[]>();
  for (const s of asArray(inter.extractedSentences)) {
    const o = s as { docId?: unknown; text?: unknown };
    if (typeof o?.docId === "string" && typeof o.text === "string") sentences.set(o.docId, [...(sentences.get(o.docId) ?? []), o.text]);
  }
  const out: EvidenceView[] = [];
  const merged = asArray(inter.evidence);
  if (merged.length) {
    for (const e of merged) {
      const o = e as { id?: unknown; provenance?: unknown };
      const id = String(o.id);
      const queries = asArray(o.provenance).map((p) => {
        const q = p as { query?: unknown; rank?: unknown; score?: unknown };
        return { query: String(q.query ?? ""), rank: Number(q.rank), score: Number(q.score) };
      });
      const best = queries.reduce<{ rank: number; score: number } | null>((b, q) => (b === null || q.rank < b.rank ? q : b), null);
      out.push({ id, rank: best?.rank ?? null, score: best?.score ?? null, queries, golden: golden.has(id), sentences: sentences.get(id) ?? [] });
    }
    return out;
  }
  const ids = asArray(inter.evidenceIds).length ? asArray(inter.evidenceIds) : asArray(inter.negation).map((n) => (n as { id?: unknown }).id);
  for (const raw of ids) {
    const id = String(raw);
    out.push({ id, rank: null, score: null, queries: [], golden: golden.has(id), sentences: sentences.get(id) ?? [] });
  }
  return out;
}

/** A judge's rationale from its raw answer (JSON with `rationale`), else null. */
export function rationaleOf(j: JudgeScoreEntry): string | null {
  const e = j as JudgeScoreEntry & { rationale?: unknown };
  if (typeof e.rationale === "string") return e.rationale;
  if (typeof j.raw !== "string") return null;
  try {
    const start = j.raw.indexOf("{");
    const end = j.raw.lastIndexOf("}");
    if (start < 0 || end <= start) return null;
    const parsed = JSON.parse(j.raw.slice(start, end + 1)) as { rationale?: unknown };
    return typeof parsed.rationale === "string" ? parsed.rationale : null;
  } catch {
    return null;
  }
}

/** One judge verdict as shown: rationale when ok, raw answer and reason when missing. */
export function judgeView(j: JudgeScoreEntry): JudgeView {
  const rationale = rationaleOf(j);
  return {
    judgeId: j.judgeId,
    rubricId: j.rubricId,
    status: j.status,
    scores: j.scores ?? {},
    rationale,
    raw: j.status !== "ok" || rationale === null ? (j.raw ?? null) : null,
    error: j.error ?? null,
  };
}

/** One cell of the item page: record `r` (row `rowId` of the run named `runName`). */
export function cellView(r: RunRecord, rowId: number, runName: string, golden: ReadonlySet<string>): CellView {
  const inter = (r.intermediate ?? {}) as Record<string, unknown>;
  const negation =
    r.workflow === "negated-rag" || Array.isArray(inter.negation)
      ? asArray(inter.negation)
          .map((n) => n as { id?: unknown; changed?: unknown })
          .filter((n) => asArray(n.changed).length > 0)
          .map((n) => ({
            id: String(n.id),
            changed: asArray(n.changed).map((c) => {
              const s = c as { original?: unknown; negated?: unknown; mode?: unknown };
              return { original: String(s.original ?? ""), negated: String(s.negated ?? ""), mode: String(s.mode ?? "") };
            }),
          }))
      : null;
  const pcot = Array.isArray(inter.drafts)
    ? {
        plan: inter.plan ?? null,
        questions: asArray(inter.questions).map((q) => ({ round: Number((q as { round?: unknown }).round ?? 0), question: String((q as { question?: unknown }).question ?? "") })),
        drafts: asArray(inter.drafts).map((d) => String(d)),
        scores: asArray(inter.scores).map((s) => Number(s)),
        stopReason: asString(inter.stopReason),
      }
    : null;
  return {
    rowId,
    run: runName,
    key: r.key,
    model: r.model,
    workflow: r.workflow,
    params: paramsLabel(r.params),
    repeat: r.repeat ?? 0,
    status: r.status,
    output: typeof r.output === "string" ? r.output : null,
    truncated: r.truncated === true,
    error: r.error ?? null,
    generator: r.generator,
    evidence: evidenceOf(r, golden),
    negation,
    pcot,
    queries: asArray(inter.queries).map((q) => String(q)),
    judges: (r.judgeScores ?? []).map(judgeView),
    panel: r.panel ?? null,
    metrics: r.metrics ?? {},
    labels: r.labels ?? {},
  };
}

/**
 * The item page for one item id (cells of every loaded run, in run then table order), or null when
 * no cell has that id. The cells are found through the runs' indexes and their full records read
 * back from the results files by offset.
 */
export function buildItemView(index: RunIndex, itemId: string): ItemView | null {
  const rows: { run: number; id: number }[] = [];
  for (const run of index.runs) {
    for (const { id } of index.db.prepare(`SELECT id FROM r${run.index}.cells WHERE itemId = ? ORDER BY id`).all(itemId) as { id: number }[]) rows.push({ run: run.index, id: rowIdOf(run.index, id) });
  }
  if (rows.length === 0) return null;
  const records = recordsOf(index, rows);
  const golden = goldenIdsOf(records);
  const goldenSet = new Set(golden);
  const first = records[0];
  const meta = (first.itemMeta ?? {}) as Record<string, string | number | null>;
  const question = typeof meta.question === "string" ? meta.question : typeof meta.title === "string" ? meta.title : null;
  return {
    itemId,
    dataset: first.dataset,
    question,
    reference: records.find((r) => typeof r.reference === "string")?.reference ?? null,
    itemMeta: meta,
    goldenIds: golden,
    cells: rows.map((r, i) => cellView(records[i], r.id, index.runs[r.run].name, goldenSet)),
  };
}
