/**
 * MSLR2022 expert annotations (Cochrane subtask, file `mslr-annotations/cochrane-A1.tsv`:
 * 265 target/generated summary pairs over 120 reviews, 6 systems) → typed rows for validating
 * judges and metrics against human experts.
 *
 * Rating scales, as printed in the annotation form (the leading number is the value):
 * - fluency: 0 "No" (major errors impede comprehension), 1 "Somewhat", 2 "Yes" (no errors that
 *   impact comprehension);
 * - population / intervention / outcome agreement (generated vs target): 0 "No", 1 "Partially",
 *   2 "Yes"; "N/A: No … in generated summary" → not-applicable;
 * - effect direction of target and of generated summary: -1 negative, 0 no effect, +1 positive;
 *   "N/A: no effect direction is specified …" → not-applicable;
 * - claim strength of target and of generated summary: 0 not enough evidence, 1 weak,
 *   2 moderate, 3 strong; "N/A: No claim …" → not-applicable.
 * "Other / uncertain (please comment)" → status "other"; an empty cell → "missing". No rating is
 * ever turned into a number it was not given.
 * @see Wang LL et al. 2023, "Automated Metrics for Medical Multi-Document Summarization Disagree
 *   with Human Evaluations" (the MSLR annotation study).
 */
import { z } from "zod";
import { parse } from "csv-parse/sync";
import { createSkipCounter, dataFilePath, readDataFile, readJsonFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";
import { existsSync } from "node:fs";

/** Registry name of this dataset. */
export const MSLR_ANNOTATIONS_DATASET = "mslr-annotations";

/** One expert rating: numeric value when given on the scale, else a status. */
export const RatingSchema = z
  .object({
    value: z.number().int().nullable(),
    status: z.enum(["rated", "not-applicable", "other", "missing"]),
    /** The cell as annotated (e.g. "1: Partially"). */
    label: z.string(),
  })
  .strict();
/** One expert rating; see {@link RatingSchema}. */
export type Rating = z.infer<typeof RatingSchema>;

/** One annotated (target, generated) summary pair. */
export const MslrAnnotationSchema = z
  .object({
    id: z.string(),
    dataset: z.string(),
    reviewId: z.string().regex(/^CD\d+$/),
    expId: z.string().min(1),
    /** System name from submission_info.json (keyed by the last 6 characters of expId), or null. */
    system: z.string().nullable(),
    targetSummary: z.string(),
    generatedSummary: z.string(),
    fluency: RatingSchema,
    population: RatingSchema,
    intervention: RatingSchema,
    outcome: RatingSchema,
    effectDirectionTarget: RatingSchema,
    effectDirectionGenerated: RatingSchema,
    claimStrengthTarget: RatingSchema,
    claimStrengthGenerated: RatingSchema,
    comments: z.object({ pio: z.string().nullable(), effectDirection: z.string().nullable(), claimStrength: z.string().nullable() }).strict(),
  })
  .strict();
/** One annotated summary pair; see {@link MslrAnnotationSchema}. */
export type MslrAnnotation = z.infer<typeof MslrAnnotationSchema>;

/** Options of {@link loadMslrAnnotations}. */
export const MslrAnnotationsOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of the TSV (default `<dataDir>/mslr-annotations/cochrane-A1.tsv`). */
    path: z.string().optional(),
    /** Path of submission_info.json (default next to the TSV's default). */
    submissionInfoPath: z.string().optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadMslrAnnotations}. */
export type MslrAnnotationsOptions = z.input<typeof MslrAnnotationsOptionsSchema>;

/** TSV column headers (exact text of the annotation form). */
export const MSLR_ANNOTATION_COLUMNS = {
  expId: "ExpID",
  reviewId: "ReviewID",
  target: "Target Summary",
  generated: "Generated Summary",
  fluency: "Is the generated summary fluent?",
  population: "Is the *population* in the generated summary the same as the population in the target summary?",
  intervention: "Is the *intervention* in the generated summary the same as the intervention in the target summary?",
  outcome: "Is the *outcome* in the generated summary the same as the outcome in the target summary?",
  pioComment: "Comments about PIO agreement (optional)",
  effectTarget: "What is the effect direction in the *target* summary?",
  effectGenerated: "What is the effect direction in the *generated* summary?",
  effectComment: "Comments about effect directions (optional)",
  claimTarget: "What is the strength of the claim made in the *target* summary?",
  claimGenerated: "What is the strength of the claim made in the *generated* summary?",
  claimComment: "Comments about strength of claim (optional)",
} as const;

/**
 * Parse one rating cell: "2: Yes" → 2, "(+1): Positive effect" → 1, "(-1): …" → -1,
 * "N/A: …" → not-applicable, "Other / uncertain …" → other, "" → missing.
 * @param min lowest valid value of the scale; @param max highest. A number outside → status "other".
 */
export function parseRating(cell: string | undefined, min: number, max: number): Rating {
  const label = (cell ?? "").trim();
  if (!label) return { value: null, status: "missing", label };
  if (/^N\/A\b/i.test(label)) return { value: null, status: "not-applicable", label };
  const m = /^\(?([+-]?\d+)\)?\s*:/.exec(label);
  if (m) {
    const value = Number(m[1]);
    if (value >= min && value <= max) return { value, status: "rated", label };
  }
  return { value: null, status: "other", label };
}

/**
 * Load the MSLR Cochrane expert annotations.
 * Item `id` = "<ReviewID>:<ExpID>". A row without ReviewID/ExpID is skipped and counted.
 * @throws Error naming the file when it is missing or lacks a column.
 */
export async function loadMslrAnnotations(options: MslrAnnotationsOptions = {}): Promise<LoadedDataset<MslrAnnotation>> {
  const opts = MslrAnnotationsOptionsSchema.parse(options);
  const path = opts.path ?? (await dataFilePath(opts.dataDir, "mslr-annotations/cochrane-A1.tsv"));
  const infoPath = opts.submissionInfoPath ?? (await dataFilePath(opts.dataDir, "mslr-annotations/submission_info.json"));
  const rows = parse(readDataFile(path, MSLR_ANNOTATIONS_DATASET), {
    columns: true,
    delimiter: "\t",
    relax_quotes: true,
    skip_empty_lines: true,
  }) as Record<string, string>[];
  const C = MSLR_ANNOTATION_COLUMNS;
  const missing = Object.values(C).filter((c) => rows.length > 0 && !(c in rows[0]));
  if (missing.length) throw new Error(`dataset "mslr-annotations": ${path} lacks column(s): ${missing.join(" | ")}`);
  const systems = new Map<string, string>();
  if (existsSync(infoPath)) {
    const info = readJsonFile(infoPath, MSLR_ANNOTATIONS_DATASET) as Record<string, { name?: string }>;
    for (const [k, v] of Object.entries(info)) if (v?.name) systems.set(k, v.name);
  }
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: MslrAnnotation[] = [];
  const comment = (s: string | undefined) => (s && s.trim() ? s.trim() : null);
  rows.forEach((r, i) => {
    const where = `${path} row ${i + 2}`;
    const expId = (r[C.expId] ?? "").trim();
    const reviewId = (r[C.reviewId] ?? "").trim();
    const candidate = {
      id: `${reviewId}:${expId}`,
      dataset: MSLR_ANNOTATIONS_DATASET,
      reviewId,
      expId,
      system: systems.get(expId.slice(-6)) ?? null,
      targetSummary: (r[C.target] ?? "").trim(),
      generatedSummary: (r[C.generated] ?? "").trim(),
      fluency: parseRating(r[C.fluency], 0, 2),
      population: parseRating(r[C.population], 0, 2),
      intervention: parseRating(r[C.intervention], 0, 2),
      outcome: parseRating(r[C.outcome], 0, 2),
      effectDirectionTarget: parseRating(r[C.effectTarget], -1, 1),
      effectDirectionGenerated: parseRating(r[C.effectGenerated], -1, 1),
      claimStrengthTarget: parseRating(r[C.claimTarget], 0, 3),
      claimStrengthGenerated: parseRating(r[C.claimGenerated], 0, 3),
      comments: { pio: comment(r[C.pioComment]), effectDirection: comment(r[C.effectComment]), claimStrength: comment(r[C.claimComment]) },
    };
    const v = validateItem(MslrAnnotationSchema, candidate);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${where}: ${v.reason}; skipped`);
      return;
    }
    if (opts.limit === undefined || items.length < opts.limit) items.push(v.value);
  });
  const targetWording = items.filter((a) => a.effectDirectionGenerated.status === "not-applicable" && /target summary/i.test(a.effectDirectionGenerated.label)).length;
  if (targetWording > 0) {
    warnings.push(
      `${path}: ${targetWording} row(s) answer the *generated* effect-direction question with the target's wording "N/A: no effect direction is specified in the target summary"; read as not-applicable for the generated summary`,
    );
  }
  return { name: MSLR_ANNOTATIONS_DATASET, taskKind: "annotations", items, warnings, skipped: skippedOf(skipped) };
}
