/**
 * MedConclusion (seed 000) against this run. Prompt modes A–D are the workflows `conclusion-a` …
 * `conclusion-d`; the five judge dimensions are the per-judge columns
 * `judge:medconclusion-dimensions.<dimension>@<judge>`; the primary judge (the paper's
 * GPT-5.4-mini) is the panel judge with id `primary`, else the first judge, and the secondary
 * (Gemini 3 Flash) the judge `secondary`, else the second.
 *
 * - Table 2: mode A, primary judge, mean ± 95 % t CI over items, per model.
 * - Table 3: mode A, reference metrics (word/sentence-count ratio, embedding cosine, ROUGE-1/2/L
 *   F1, BLEU, GPT-2 perplexity of the reference and of the output).
 * - Table 4: each mode, primary judge. Table 5: mode A under each judge.
 * Claims: the model ranking under the primary judge (Kendall τ-b against Table 2, per dimension),
 * the judge swap (the best model under the primary judge stays best under the secondary, Table 5),
 * and mode C's numeric-consistency gain over mode A (paired t per model, Table 4).
 *
 * @see ../../../../shared/seeds/000_* (§3.2, §4.1–4.3, Tables 2–5).
 */
import type { RunRecord } from "../../types.ts";
import { MEDCONCLUSION_JUDGE_COLUMNS, MEDCONCLUSION_JUDGES, MEDCONCLUSION_MODELS, MEDCONCLUSION_PUBLISHED } from "../published/medconclusion.ts";
import type { PublishedValue } from "../published/schema.ts";
import { judgesOf } from "../tables.ts";
import { mean } from "../../../judges/stats/index.ts";
import { argmax, columnValues, f3, fp, meanCoverage, noModelReason, overall, pairedOn, pubNum, tau, type ClaimResult, type Coverage, type PaperRun, type Verdict } from "./common.ts";

/** Rubric dimension of each judge column of Tables 2, 4 and 5. */
export const MEDCONCLUSION_DIMENSIONS: Readonly<Record<(typeof MEDCONCLUSION_JUDGE_COLUMNS)[number], string>> = {
  "Semantic Sim.": "semantic_similarity",
  "Writing Style Sim.": "writing_style_similarity",
  "Non-Contradiction Rate": "non_contradiction",
  "Numeric Consistency": "numeric_consistency",
  "Formality Sim.": "formality_similarity",
};
/** Metric column of each Table 3 column. */
export const MEDCONCLUSION_T3_METRICS: Readonly<Record<string, string>> = {
  "WC Ratio": "word_count_ratio",
  "SC Ratio": "sentence_count_ratio",
  "Embed. Sim.": "embedding_cosine",
  "ROUGE-1": "rouge1_fmeasure",
  "ROUGE-2": "rouge2_fmeasure",
  "ROUGE-L": "rougeL_fmeasure",
  BLEU: "bleu",
  "PPL Orig.": "perplexity_reference",
  "PPL Gen.": "perplexity",
};
const RUBRIC = "judge:medconclusion-dimensions";
const modeWorkflow = (mode: string) => `conclusion-${mode.toLowerCase()}`;

/** Which items the comparison used: MedConclusion's (dataset medconclusion-hf or a corpus store) or others. */
export function medconclusionSampleNote(run: PaperRun): string {
  const ds = [...new Set(run.records.filter((r) => r.taskKind === "conclusion").map((r) => r.dataset))];
  const n = new Set(run.records.filter((r) => r.taskKind === "conclusion").map((r) => `${r.dataset}\u0000${r.itemId}`)).size;
  const own = ds.length > 0 && ds.every((d) => d === "medconclusion-hf" || d === "corpus-store");
  return own
    ? `MedConclusion: ${n} MedConclusion abstracts (the paper: a random 30K sample)`
    : `MedConclusion: ${n} structured abstracts from ${ds.join(", ") || "no dataset"} (the paper: a random 30K sample of MedConclusion)`;
}

/** The run's primary and secondary judge ids (null when the run has fewer judges). */
export function medconclusionJudges(records: RunRecord[]): { primary: string | null; secondary: string | null } {
  const ids = judgesOf(records, `${RUBRIC}.semantic_similarity`);
  const primary = ids.includes("primary") ? "primary" : (ids[0] ?? null);
  const rest = ids.filter((j) => j !== primary);
  return { primary, secondary: rest.includes("secondary") ? "secondary" : (rest[0] ?? null) };
}

/** Whether any model of the run carries one of MedConclusion's model names. */
const anyLabelled = (run: PaperRun) => MEDCONCLUSION_MODELS.some((m) => run.byPaperModel.has(m));

function recordsOf(run: PaperRun, model: string, mode: string): RunRecord[] {
  return (run.byPaperModel.get(model) ?? []).filter((r) => r.taskKind === "conclusion" && r.workflow === modeWorkflow(mode));
}

/** This run's statistic for one MedConclusion published value, or why it has none. */
export function medconclusionCoverage(run: PaperRun, v: PublishedValue): Coverage {
  if (!run.byPaperModel.has(v.row.model)) return { uncovered: noModelReason(run, v.row.model) };
  const mode = v.row.mode ?? "A";
  const rs = recordsOf(run, v.row.model, mode);
  const what = `${v.row.model} mode ${mode} (${modeWorkflow(mode)})`;
  if (v.table === "Table 3") return meanCoverage(rs, MEDCONCLUSION_T3_METRICS[v.column], what);
  const judges = medconclusionJudges(run.records.filter((r) => r.taskKind === "conclusion"));
  const judge = v.row.judge === MEDCONCLUSION_JUDGES.secondary ? judges.secondary : judges.primary;
  if (!judge)
    return {
      uncovered:
        v.row.judge === MEDCONCLUSION_JUDGES.secondary ? "this run has no second judge (the paper's secondary judge, Gemini 3 Flash)" : "this run has no MedConclusion judge scores (no panel)",
    };
  return meanCoverage(rs, `${RUBRIC}.${MEDCONCLUSION_DIMENSIONS[v.column as keyof typeof MEDCONCLUSION_DIMENSIONS]}@${judge}`, `${what}, judge ${judge}`);
}

/** Covered models' means on one dimension under one judge in mode A (models without scores left out). */
function modeAMeans(run: PaperRun, models: readonly string[], column: string): { model: string; mean: number }[] {
  const out: { model: string; mean: number }[] = [];
  for (const m of models) {
    const xs = columnValues(recordsOf(run, m, "A"), column);
    if (xs.length) out.push({ model: m, mean: mean(xs) });
  }
  return out;
}

const pub = (table: string, row: Record<string, string>, column: string) =>
  pubNum(MEDCONCLUSION_PUBLISHED.find((v) => v.table === table && v.column === column && Object.entries(row).every(([k, x]) => v.row[k] === x))!);

/** Ranking under the primary judge: Kendall τ-b between Table 2 and this run, per dimension (≥ 3 models; reproduced at τ-b ≥ 0.5). */
function rankingClaims(run: PaperRun, judges: { primary: string | null }): ClaimResult[] {
  return MEDCONCLUSION_JUDGE_COLUMNS.map((col) => {
    const models = judges.primary ? modeAMeans(run, MEDCONCLUSION_MODELS, `${RUBRIC}.${MEDCONCLUSION_DIMENSIONS[col]}@${judges.primary}`) : [];
    const paperVals = models.map((m) => pub("Table 2", { model: m.model }, col));
    const t =
      models.length >= 3
        ? tau(
            paperVals,
            models.map((m) => m.mean),
          )
        : Number.NaN;
    const verdict: Verdict = models.length < 3 || !Number.isFinite(t) ? "not covered" : t >= 0.5 ? "reproduced" : "not reproduced";
    return {
      paper: "medconclusion",
      claim: `Model ranking under the primary judge, ${col}`,
      test: "Kendall τ-b between Table 2 and this run's mode-A means (primary judge) over the covered models; reproduced at τ-b ≥ 0.5",
      published: models.length ? models.map((m, i) => `${m.model} ${paperVals[i].toFixed(2)}`).join(", ") : "15 models (Table 2)",
      thisRun: models.length ? `τ-b ${f3(t)} over ${models.length} models: ${models.map((m) => `${m.model} ${m.mean.toFixed(2)}`).join(", ")}` : "–",
      verdict,
      detail:
        verdict !== "not covered"
          ? ""
          : !anyLabelled(run)
            ? noModelReason(run, "GPT-5.4")
            : !judges.primary
              ? "no judge scores"
              : models.length < 3
                ? `needs at least 3 of the paper's models with mode-A scores (this run: ${models.length})`
                : "a ranking is constant (all tied)",
    };
  });
}

/** Judge swap (Table 5): the best model under the primary judge is the best under the secondary, per dimension. */
function judgeSwapClaims(run: PaperRun, judges: { primary: string | null; secondary: string | null }): ClaimResult[] {
  const t5models = [...new Set(MEDCONCLUSION_PUBLISHED.filter((v) => v.table === "Table 5").map((v) => v.row.model))];
  return MEDCONCLUSION_JUDGE_COLUMNS.map((col) => {
    const dim = MEDCONCLUSION_DIMENSIONS[col];
    const prim = judges.primary ? modeAMeans(run, MEDCONCLUSION_MODELS, `${RUBRIC}.${dim}@${judges.primary}`) : [];
    const sec = judges.secondary ? modeAMeans(run, MEDCONCLUSION_MODELS, `${RUBRIC}.${dim}@${judges.secondary}`) : [];
    const both = prim.filter((p) => sec.some((s) => s.model === p.model));
    const a = both.map((p) => p.mean);
    const b = both.map((p) => sec.find((s) => s.model === p.model)!.mean);
    const pa = t5models.map((m) => pub("Table 5", { judge: MEDCONCLUSION_JUDGES.primary, model: m }, col));
    const pb = t5models.map((m) => pub("Table 5", { judge: MEDCONCLUSION_JUDGES.secondary, model: m }, col));
    const covered = both.length >= 2;
    const same = covered && argmax(a) === argmax(b);
    return {
      paper: "medconclusion",
      claim: `Judge swap, ${col}: the best generator under the primary judge stays best under the secondary`,
      test: "mode-A means under each judge; reproduced when the top model is the same under both (τ-b between the two rankings shown)",
      published: `top ${t5models[argmax(pa)]} under both; τ-b ${f3(tau(pa, pb))} over ${t5models.length} models`,
      thisRun: covered ? `top ${both[argmax(a)].model} (primary) / ${both[argmax(b)].model} (secondary); τ-b ${f3(tau(a, b))} over ${both.length} models` : "–",
      verdict: covered ? (same ? "reproduced" : "not reproduced") : "not covered",
      detail: covered
        ? ""
        : !anyLabelled(run)
          ? noModelReason(run, "GPT-5.4")
          : !judges.secondary
            ? "this run has no second judge"
            : `needs at least 2 of the paper's models scored by both judges (this run: ${both.length})`,
    };
  });
}

/** Mode C over mode A on numeric consistency (primary judge), paired t per model. */
function modeCClaims(run: PaperRun, judges: { primary: string | null }): ClaimResult[] {
  const col = `${RUBRIC}.numeric_consistency@${judges.primary}`;
  const verdicts: Verdict[] = [];
  const parts: string[] = [];
  for (const m of MEDCONCLUSION_MODELS) {
    if (!run.byPaperModel.has(m) || !judges.primary) continue;
    const p = pairedOn(recordsOf(run, m, "C"), recordsOf(run, m, "A"), col);
    if (!p) continue;
    verdicts.push(p.meanDiff > 0 && p.p < 0.05 ? "reproduced" : "not reproduced");
    parts.push(`${m}: Δ ${f3(p.meanDiff)}, t ${f3(p.t)}, p ${fp(p.p)} (N ${p.n})`);
  }
  const gain = (m: string) => (pub("Table 4", { mode: "C", model: m }, "Numeric Consistency") - pub("Table 4", { mode: "A", model: m }, "Numeric Consistency")).toFixed(2);
  return [
    {
      paper: "medconclusion",
      claim: "Mode C raises numeric consistency over mode A",
      test: "paired t over items per model, C − A on the primary judge's numeric consistency; reproduced when Δ > 0 with p < 0.05 for every covered model",
      published: `GPT-5.4 +${gain("GPT-5.4")}, Gemini 3 Flash +${gain("Gemini 3 Flash")} (Table 4, no test printed)`,
      thisRun: parts.length ? parts.join("; ") : "–",
      verdict: overall(verdicts),
      detail: parts.length ? "" : !anyLabelled(run) ? noModelReason(run, "GPT-5.4") : !judges.primary ? "no judge scores" : "no labelled model has both mode A and mode C judged on the same items",
    },
  ];
}

/** The MedConclusion claims: ranking per dimension, judge swap per dimension, mode C's numeric gain. */
export function medconclusionClaims(run: PaperRun): ClaimResult[] {
  const judges = medconclusionJudges(run.records.filter((r) => r.taskKind === "conclusion"));
  return [...rankingClaims(run, judges), ...judgeSwapClaims(run, judges), ...modeCClaims(run, judges)];
}
