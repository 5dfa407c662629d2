/**
 * What a rater's page receives and sends: the rater's own tasks, blinded (texts only — no cell
 * keys, models, workflows or parameters), with their saved ratings; validation of a submitted
 * rating against the rubric's scale; and the de-blinded export for the study lead.
 */
import { timingSafeEqual } from "node:crypto";
import type { RunRecord } from "../../results/run-record.ts";
import type { Rating, RatingStore, SubmitResult } from "./store.ts";
import { cellInputs, requiredInputs, studyDimensions, type Study, type StudyRater } from "./study.ts";

/** One task as a rater sees it. */
export interface BlindTask {
  /** Position in the rater's sequence (1-based); the task is addressed by it. */
  position: number;
  kind: "single" | "pairwise";
  calibration: boolean;
  question: string | null;
  /** The text the output was written from; only when a rubric needs it (`inputs: [source, …]`). */
  source: string | null;
  reference: string | null;
  /** One output (single) or two, labelled A and B as shown. */
  outputs: { label: string; text: string }[];
  /** Calibration: the reference rating, shown after the rater has answered. */
  referenceScores: Record<string, number> | null;
  /** The rater's saved rating in display terms (pairwise preference as shown), or null. */
  rating: { scores: Record<string, number>; preference: "A" | "B" | "tie" | null; comment: string; revision: number } | null;
}

/** The rubric form a rater fills in. */
export interface RatingForm {
  mode: "single" | "pairwise";
  dimensions: { id: string; name: string; description: string; min: number; max: number; type: "interval" | "binary"; anchors: { score: number; label: string; description: string }[] }[];
}

/** Find the rater with this token (constant-time comparison); null when none has it. */
export function raterByToken(study: Study, token: string): StudyRater | null {
  const t = Buffer.from(token);
  for (const r of study.raters) {
    const b = Buffer.from(r.token);
    if (b.length === t.length && timingSafeEqual(b, t)) return r;
  }
  return null;
}

/** The form of a study's rubric(s). */
export function ratingForm(study: Study): RatingForm {
  return {
    mode: study.mode,
    dimensions: studyDimensions(study).map(({ id, rubric, dim }) => ({
      id,
      name: dim.name,
      description: dim.description,
      min: rubric.scale.min,
      max: rubric.scale.max,
      type: rubric.scale.type,
      anchors: [...rubric.anchors].sort((a, b) => b.score - a.score),
    })),
  };
}

const toShown = (pref: Rating["preference"], swap: boolean): "A" | "B" | "tie" | null => (pref === null ? null : pref === "tie" ? "tie" : (pref === "a") !== swap ? "A" : "B");
const fromShown = (pref: "A" | "B" | "tie", swap: boolean): "a" | "b" | "tie" => (pref === "tie" ? "tie" : (pref === "A") !== swap ? "a" : "b");

/** The rater's tasks in order, blinded, with saved ratings. */
export function raterTasks(study: Study, records: Map<string, RunRecord>, store: RatingStore, rater: StudyRater): BlindTask[] {
  const saved = new Map(store.forRater(rater.id).map((r) => [r.task, r] as const));
  const tasks = new Map(study.tasks.map((t) => [t.id, t] as const));
  const showSource = (study.requiredInputs ?? requiredInputs(study.rubrics)).includes("source");
  return study.order[rater.id].map((ref, i) => {
    const t = tasks.get(ref.taskId)!;
    const recs = t.keys.map((k) => records.get(k)!);
    const shown = ref.swap ? [...recs].reverse() : recs;
    const inputs = cellInputs(recs[0]);
    const s = saved.get(t.id);
    return {
      position: i + 1,
      kind: t.kind,
      calibration: t.calibration,
      question: inputs.question,
      source: showSource ? inputs.source : null,
      reference: inputs.reference,
      outputs: shown.map((r, j) => ({ label: t.kind === "pairwise" ? (j === 0 ? "A" : "B") : "Output", text: r.output ?? "" })),
      referenceScores: t.calibration && s ? (t.referenceScores ?? null) : null,
      rating: s ? { scores: s.scores, preference: toShown(s.preference, ref.swap), comment: s.comment, revision: s.revision } : null,
    };
  });
}

/** A submitted rating in display terms. */
export interface RatingSubmission {
  scores?: Record<string, unknown>;
  preference?: unknown;
  comment?: unknown;
  /** The revision the page saw (0 when it saw none). */
  revision?: unknown;
}

/**
 * Validate and store one submission for the rater's task at `position` (1-based).
 * @returns the store's result, or an error message for a bad submission (the server answers 400)
 */
export function submitRating(study: Study, store: RatingStore, rater: StudyRater, position: number, body: RatingSubmission): SubmitResult | { error: string } {
  const ref = study.order[rater.id][position - 1];
  if (!ref) return { error: `no task ${position} (you have ${study.order[rater.id].length})` };
  const task = study.tasks.find((t) => t.id === ref.taskId)!;
  const baseRevision = Number(body.revision ?? 0);
  if (!Number.isInteger(baseRevision) || baseRevision < 0) return { error: "revision must be a non-negative integer" };
  const comment = typeof body.comment === "string" ? body.comment.slice(0, 10_000) : "";
  if (task.kind === "pairwise") {
    if (body.preference !== "A" && body.preference !== "B" && body.preference !== "tie") return { error: 'preference must be "A", "B" or "tie"' };
    return store.submit(rater.id, task.id, { scores: {}, preference: fromShown(body.preference, ref.swap), comment }, baseRevision);
  }
  const scores: Record<string, number> = {};
  for (const d of studyDimensions(study)) {
    const v = body.scores?.[d.id];
    const x = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof x !== "number" || !Number.isFinite(x)) return { error: `${d.dim.name}: a score is required` };
    if (x < d.rubric.scale.min || x > d.rubric.scale.max || (d.rubric.scale.integer && !Number.isInteger(x))) {
      return { error: `${d.dim.name}: ${x} is not on the scale ${d.rubric.scale.min}–${d.rubric.scale.max}${d.rubric.scale.integer ? " (whole numbers)" : ""}` };
    }
    scores[d.id] = x;
  }
  return store.submit(rater.id, task.id, { scores, preference: null, comment }, baseRevision);
}

/** One export row: the rating with the task de-blinded. */
export type RatingExportRow = Record<string, string | number | boolean | null>;

/**
 * Every rating, de-blinded (cell keys, item, configurations), one row per (rater, task); score
 * columns `<rubric>.<dim>`; pairwise rows name the preferred configuration.
 */
export function exportRatings(study: Study, store: RatingStore): RatingExportRow[] {
  const tasks = new Map(study.tasks.map((t) => [t.id, t] as const));
  const dims = studyDimensions(study).map((d) => d.id);
  return store.all().map((r) => {
    const t = tasks.get(r.task);
    const row: RatingExportRow = {
      rater: r.rater,
      task: r.task,
      itemId: t?.itemId ?? null,
      calibration: t?.calibration ?? null,
      keyA: t?.keys[0] ?? null,
      configA: t?.configs[0] ?? null,
      keyB: t?.keys[1] ?? null,
      configB: t?.configs[1] ?? null,
    };
    for (const d of dims) row[d] = r.scores[d] ?? null;
    row.preference = r.preference;
    row.preferred = r.preference === "a" ? (t?.configs[0] ?? null) : r.preference === "b" ? (t?.configs[1] ?? null) : r.preference === "tie" ? "tie" : null;
    row.comment = r.comment;
    row.revision = r.revision;
    row.updatedAt = r.updatedAt;
    return row;
  });
}
