/**
 * The structured RWE study of the RWESummary paper (GLP-1 RA vs SGLT2i, hospitalisations in
 * respiratory disease) → one {@link RweStudy}.
 *
 * File: `corpus/datasets/data/glp1-vs-sglt2i-respiratory.json` (shipped) — {id, source, studyType, propensityScoreMatched,
 * question, design {population, intervention, control, timeframe}, results {intervention_size,
 * control_size, baseline_differences {key → "control X vs intervention Y"}, outcomes
 * {"<name>!<measure>" → "est (lo, hi)", "<name>!pvalue" → "p"}}}.
 * @see ../../../shared/seeds/002_* (RWESummary, "Prompt" section and Appendix 1).
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { RweStudySchema, type RweOutcome, type RweStudy } from "../types.ts";
import { createSkipCounter, readJsonFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const RWE_GLP1_DATASET = "rwe-glp1";

/**
 * The study's fact sheet, part of medsynth: numbers and design facts transcribed from the
 * RWESummary paper's example (seed 002), no third-party text beyond those facts.
 */
export const RWE_GLP1_FILE = fileURLToPath(new URL("./data/glp1-vs-sglt2i-respiratory.json", import.meta.url));

/** Options of {@link loadRweGlp1}. */
export const RweGlp1OptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of an RWE study JSON in this shape (default: the fact sheet shipped with medsynth, see {@link RWE_GLP1_FILE}; with `dataDir`, `<dataDir>/rwe/glp1-vs-sglt2i-respiratory.json`). */
    path: z.string().optional(),
  })
  .strict();
/** Options of {@link loadRweGlp1}. */
export type RweGlp1Options = z.input<typeof RweGlp1OptionsSchema>;

/**
 * Parse an estimate with CI: "0.866 (0.665, 1.13)" or "1.24 (0.33 - 4.99)".
 * @returns `{estimate, ciLower, ciUpper}` (CI null when absent) or null when no number leads.
 */
export function parseEstimateWithCi(text: string): { estimate: number; ciLower: number | null; ciUpper: number | null } | null {
  const m = /^\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*(?:\(\s*(-?\d+(?:\.\d+)?)\s*(?:,|-|–|to)\s*(-?\d+(?:\.\d+)?)\s*\))?\s*$/i.exec(text);
  if (!m) return null;
  return { estimate: Number(m[1]), ciLower: m[2] === undefined ? null : Number(m[2]), ciUpper: m[3] === undefined ? null : Number(m[3]) };
}

interface RawRwe {
  id?: string;
  source?: string;
  studyType?: string;
  propensityScoreMatched?: boolean;
  question?: string;
  design?: { population?: string; intervention?: string; control?: string; timeframe?: string };
  results?: { intervention_size?: string | number; control_size?: string | number; baseline_differences?: Record<string, string>; outcomes?: Record<string, string> };
}

/**
 * Load the GLP-1 RA vs SGLT2i study.
 *
 * Study: `id` = file id, `design` = studyType, `picot` from design (comparator = control, time
 * = timeframe, outcomes = outcome names), `cohortSizes` {exposed: intervention_size, comparator:
 * control_size, total: their sum}, `propensityMatched`, `baselineDifferences` = each
 * baseline_differences entry as {variable, description}, `outcomes` = one per "<name>!<measure>"
 * key with its "<name>!pvalue" (name kept exactly as in the source, e.g.
 * "outcome_3yrs.ip.visit.for.asthma_bin"). An outcome whose estimate does not parse is left out
 * with a warning.
 * @throws Error naming the file when missing or not JSON.
 */
export async function loadRweGlp1(options: RweGlp1Options = {}): Promise<LoadedDataset<RweStudy>> {
  const opts = RweGlp1OptionsSchema.parse(options);
  const path = opts.path ?? (opts.dataDir ? resolve(opts.dataDir, "rwe/glp1-vs-sglt2i-respiratory.json") : RWE_GLP1_FILE);
  const raw = readJsonFile(path, RWE_GLP1_DATASET) as RawRwe;
  const warnings: string[] = [];
  const skipped = createSkipCounter();
  const outcomes: RweOutcome[] = [];
  const rawOutcomes = raw.results?.outcomes ?? {};
  for (const [key, value] of Object.entries(rawOutcomes)) {
    const [name, measure] = key.split("!");
    if (!measure || measure.toLowerCase() === "pvalue") continue;
    const est = parseEstimateWithCi(String(value));
    if (!est) {
      warnings.push(`${path} outcome "${key}": cannot parse estimate "${value}"; left out`);
      continue;
    }
    const pRaw = rawOutcomes[`${name}!pvalue`];
    const p = pRaw === undefined ? null : Number(pRaw);
    outcomes.push({ name, measure, ...est, pValue: p !== null && Number.isFinite(p) ? p : null });
  }
  const exposed = raw.results?.intervention_size === undefined ? null : Number(raw.results.intervention_size);
  const comparator = raw.results?.control_size === undefined ? null : Number(raw.results.control_size);
  const candidate = {
    id: raw.id ?? "glp1-vs-sglt2i-respiratory",
    dataset: RWE_GLP1_DATASET,
    question: raw.question ?? "",
    design: raw.studyType ?? "cohort",
    picot: {
      population: raw.design?.population ?? "",
      intervention: raw.design?.intervention ?? "",
      comparator: raw.design?.control ?? null,
      outcomes: outcomes.map((o) => o.name),
      time: raw.design?.timeframe ?? null,
    },
    cohortSizes: { exposed, comparator, total: exposed !== null && comparator !== null ? exposed + comparator : null },
    propensityMatched: raw.propensityScoreMatched === true,
    baselineDifferences: Object.entries(raw.results?.baseline_differences ?? {}).map(([variable, description]) => ({ variable, description: String(description) })),
    outcomes,
    source: raw.source ?? null,
  };
  const v = validateItem(RweStudySchema, candidate);
  const items: RweStudy[] = [];
  if (v.ok) items.push(v.value);
  else {
    skipped.add(`invalid ${v.reason.split(":")[0]}`);
    warnings.push(`${path}: ${v.reason}; skipped`);
  }
  return { name: RWE_GLP1_DATASET, taskKind: "rwe", items, warnings, skipped: skippedOf(skipped) };
}
