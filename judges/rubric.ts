/**
 * Judge rubrics as data: a zod schema for rubric files (YAML or JSON), a loader for built-in and
 * custom rubric files, and the zod answer schema a judge must return for a rubric.
 *
 * Built-in rubrics live in `judges/rubrics/<id>.yaml`:
 * - `medmeta-semantic-equivalence` — MedMeta Appendix E.2, one 0–5 score weighing six criteria;
 * - `medconclusion-dimensions` — MedConclusion §3.2, five 0–100 dimensions;
 * - `rwe-direction-of-effect`, `rwe-numbers-accurate`, `rwe-completeness` — RWESummary's three
 *   binary jury metrics, each its own rubric and therefore its own call.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readConfigValue } from "../models/config-file.ts";
import { z } from "zod";

/** Folder of the built-in rubric files. */
export const BUILTIN_RUBRIC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "rubrics");

/** Inputs a rubric can ask the judge to see. `candidate` is the generated text being judged. */
export const RUBRIC_INPUTS = ["candidate", "reference", "source", "question"] as const;
/** One of {@link RUBRIC_INPUTS}. */
export type RubricInput = (typeof RUBRIC_INPUTS)[number];

const ID_RE = /^[a-z0-9][a-z0-9._-]*$/;
const DIM_RE = /^[a-z][a-z0-9_]*$/;

/** Score scale of a rubric: every dimension uses it. `binary` means exactly {0, 1}. */
export const RubricScaleSchema = z
  .object({
    min: z.number(),
    max: z.number(),
    type: z.enum(["interval", "binary"]),
    /** Whole-number scores only (default true). */
    integer: z.boolean().default(true),
  })
  .strict();
/** {@link RubricScaleSchema} after parsing (defaults applied). */
export type RubricScale = z.infer<typeof RubricScaleSchema>;

/** A scored dimension: the judge returns one number per dimension. */
export const RubricDimensionSchema = z
  .object({
    id: z.string().regex(DIM_RE, "dimension id must be snake_case (a-z, 0-9, _)"),
    name: z.string().min(1),
    description: z.string().min(1),
    /** Direction of goodness (default true); diagnostics and reports read it. */
    higherIsBetter: z.boolean().default(true),
  })
  .strict();
/** {@link RubricDimensionSchema} after parsing (defaults applied). */
export type RubricDimension = z.infer<typeof RubricDimensionSchema>;

/** A criterion the judge weighs (guidance for the score, not scored separately). */
export const RubricCriterionSchema = z
  .object({
    id: z.string().regex(DIM_RE, "criterion id must be snake_case (a-z, 0-9, _)"),
    name: z.string().min(1),
    description: z.string().min(1),
  })
  .strict();
/** {@link RubricCriterionSchema} after parsing (defaults applied). */
export type RubricCriterion = z.infer<typeof RubricCriterionSchema>;

/** A labelled point of the scale (e.g. 0 = contradictory). */
export const RubricAnchorSchema = z
  .object({
    score: z.number(),
    label: z.string().min(1),
    description: z.string().min(1),
  })
  .strict();
/** {@link RubricAnchorSchema} after parsing (defaults applied). */
export type RubricAnchor = z.infer<typeof RubricAnchorSchema>;

/**
 * A rubric file. Unknown keys are errors (strict), so a typo in a custom rubric is reported by
 * name instead of being ignored.
 */
export const RubricSchema = z
  .object({
    id: z.string().regex(ID_RE, "rubric id must be lower-case kebab/dot case"),
    /** Bumping it changes the judge call's cache key. YAML numbers are accepted and kept as text. */
    version: z.union([z.string().min(1), z.number()]).transform(String),
    title: z.string().min(1),
    description: z.string().min(1),
    /** Paper section or other origin of the rubric. */
    source: z.string().optional(),
    /** Texts the judge must see; `candidate` is always required and added when absent. */
    inputs: z.array(z.enum(RUBRIC_INPUTS)).default(["reference", "candidate"]),
    /** Default prompt template: an id of `judges/prompts/<id>.md`, or a path to a template file. */
    prompt: z.string().min(1).default("generic-rubric"),
    scale: RubricScaleSchema,
    dimensions: z.array(RubricDimensionSchema).min(1),
    criteria: z.array(RubricCriterionSchema).default([]),
    /** Extra rules for the judge, one sentence each. */
    instructions: z.array(z.string().min(1)).default([]),
    anchors: z.array(RubricAnchorSchema).default([]),
  })
  .strict()
  .superRefine((r, ctx) => {
    const s = r.scale;
    if (!(s.min < s.max)) ctx.addIssue({ code: "custom", path: ["scale"], message: `scale.min (${s.min}) must be below scale.max (${s.max})` });
    if (s.type === "binary" && (s.min !== 0 || s.max !== 1 || !s.integer)) {
      ctx.addIssue({ code: "custom", path: ["scale", "type"], message: "a binary scale must be min 0, max 1, integer true" });
    }
    const seen = new Set<string>();
    r.dimensions.forEach((d, i) => {
      if (seen.has(d.id)) ctx.addIssue({ code: "custom", path: ["dimensions", i, "id"], message: `duplicate dimension id "${d.id}"` });
      seen.add(d.id);
    });
    r.anchors.forEach((a, i) => {
      if (a.score < s.min || a.score > s.max) {
        ctx.addIssue({ code: "custom", path: ["anchors", i, "score"], message: `anchor score ${a.score} is outside the scale [${s.min}, ${s.max}]` });
      }
    });
  })
  .transform((r) => (r.inputs.includes("candidate") ? r : { ...r, inputs: [...r.inputs, "candidate" as const] }));
/** A validated rubric. */
export type Rubric = z.output<typeof RubricSchema>;

/**
 * Format zod issues as `path: message` lines (e.g. `scale.typ: Unrecognized key "typ"`).
 * @param err a ZodError
 * @returns one line per issue, joined by "; "
 */
export function formatZodIssues(err: z.ZodError): string {
  return err.issues
    .map((i) => {
      const path = i.path.map(String).join(".");
      const keys = i.code === "unrecognized_keys" ? ` (unknown key${i.keys.length > 1 ? "s" : ""}: ${i.keys.map((k) => `"${k}"`).join(", ")})` : "";
      return `${path || "(root)"}: ${i.message}${keys}`;
    })
    .join("; ");
}

/**
 * Validate a parsed rubric object.
 * @param data parsed YAML/JSON
 * @param origin file name or label used in error messages
 * @throws Error `rubric <origin>: <field path>: <problem>` naming every invalid or unknown field
 */
export function parseRubric(data: unknown, origin = "<inline>"): Rubric {
  const res = RubricSchema.safeParse(data);
  if (!res.success) throw new Error(`rubric ${origin}: ${formatZodIssues(res.error)}`);
  return res.data;
}

/**
 * Load a rubric file (`.yaml`, `.yml` or `.json`).
 * @param path file path
 * @returns the validated rubric
 * @throws Error naming the file when it cannot be read or parsed, or naming the invalid field
 */
export function loadRubricFile(path: string): Rubric {
  const data = readConfigValue(path, "rubric");
  return parseRubric(data, path);
}

/** True when `ref` looks like a file path rather than a rubric id. */
export function isRubricPath(ref: string): boolean {
  return /[\\/]/.test(ref) || /\.(ya?ml|json)$/i.test(ref);
}

/**
 * Resolve a rubric reference: a built-in id (see judges/registry.ts) or a path to a custom file.
 * @param ref rubric id or file path
 * @param baseDir folder relative paths are resolved against (default: cwd)
 * @throws Error for an unknown id (listing the built-in ids) or an invalid file
 */
export function resolveRubric(ref: string, baseDir = process.cwd()): Rubric {
  if (isRubricPath(ref)) return loadRubricFile(resolve(baseDir, ref));
  const ids = builtinRubricIds();
  if (!ids.includes(ref)) throw new Error(`unknown rubric id "${ref}"; built-in rubrics: ${ids.join(", ")} (or give a path to a rubric .yaml file)`);
  const r = loadRubricFile(join(BUILTIN_RUBRIC_DIR, `${ref}.yaml`));
  if (r.id !== ref) throw new Error(`rubric ${ref}.yaml: id "${r.id}" does not match its file name`);
  return r;
}

/** Ids of the built-in rubrics (file names in {@link BUILTIN_RUBRIC_DIR}). */
export const BUILTIN_RUBRIC_IDS = ["medmeta-semantic-equivalence", "medconclusion-dimensions", "rwe-direction-of-effect", "rwe-numbers-accurate", "rwe-completeness"] as const;

/** @returns the built-in rubric ids. */
export function builtinRubricIds(): string[] {
  return [...BUILTIN_RUBRIC_IDS];
}

/** Zod schema of one score on a rubric's scale (integer / binary as declared). */
export function buildScoreSchema(rubric: Rubric): z.ZodNumber {
  let s = z.number().min(rubric.scale.min).max(rubric.scale.max);
  if (rubric.scale.integer) s = s.int();
  return s;
}

/**
 * Build the zod schema of a judge's answer for a rubric:
 * `{ rationale: string, scores: { <dimension id>: number on the scale } }` (strict).
 * The rationale comes first so the model reasons before it scores.
 * @param rubric a validated rubric
 */
export function buildAnswerSchema(rubric: Rubric) {
  const shape: Record<string, z.ZodNumber> = {};
  for (const d of rubric.dimensions) shape[d.id] = buildScoreSchema(rubric).describe(`${d.name}: ${d.description}`);
  return z
    .object({
      rationale: z.string().describe("Short explanation of the scores"),
      scores: z.object(shape).strict(),
    })
    .strict();
}
/** The answer a judge returns for a rubric. */
export type RubricAnswer = { rationale: string; scores: Record<string, number> };

/**
 * Render the rubric blocks a prompt template can use: `dimensions`, `criteria`, `instructions`,
 * `anchors` (bulleted lines), `scale_min`, `scale_max`, `rubric_title`, `rubric_description` and
 * `answer_format` (the exact JSON shape expected).
 * @param rubric a validated rubric
 * @returns template variables (strings)
 */
export function rubricPromptVariables(rubric: Rubric): Record<string, string> {
  const bullets = (xs: string[]) => (xs.length ? xs.map((x) => `- ${x}`).join("\n") : "- (none)");
  const example = `{"rationale": "<short explanation>", "scores": {${rubric.dimensions.map((d) => `"${d.id}": <${rubric.scale.type === "binary" ? "0 or 1" : `${rubric.scale.integer ? "whole number" : "number"} ${rubric.scale.min}-${rubric.scale.max}`}>`).join(", ")}}}`;
  const anchors = [...rubric.anchors].sort((a, b) => b.score - a.score);
  return {
    rubric_title: rubric.title,
    rubric_description: rubric.description,
    dimensions: bullets(rubric.dimensions.map((d) => `${d.id} (${d.name}): ${d.description}`)),
    criteria: bullets(rubric.criteria.map((c) => `${c.name}: ${c.description}`)),
    instructions: bullets(rubric.instructions),
    anchors: bullets(anchors.map((a) => `${a.score} = ${a.label}: ${a.description}`)),
    scale_min: String(rubric.scale.min),
    scale_max: String(rubric.scale.max),
    answer_format: `Answer with only a JSON object of this shape: ${example}`,
  };
}
