/**
 * Human rating studies: a blinded, balanced sample of a run's cells for expert raters.
 *
 * `createStudy` draws a stratified sample of items (proportional to dataset size, seeded), takes
 * each sampled item's cell for every workflow configuration (model × workflow × parameters) —
 * or, in pairwise mode, every pair of configurations — and orders each rater's tasks: items in a
 * per-rater random order, and within an item the configurations follow a cyclic Latin square
 * (rater r, item position j, slot p shows configuration (r + j + p) mod W), so every
 * configuration appears in every slot equally often across raters and items. Raters see only the
 * texts (no model, workflow or parameter names). Pairwise tasks show A/B in a per-rater random
 * position. Optional calibration cells come first, in the same order for everyone, with the
 * reference rating shown after the rater's answer. Every cell's output is fingerprinted; a study
 * whose run cells changed since is refused when served or analysed.
 *
 * @see MedMeta (seed 001): two physicians rate outputs on the judges' 0–5 rubric; human-vs-LLM
 *   preference analysis.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import seedrandom from "seedrandom";
import { z } from "zod";
import { resolveRubric, type Rubric } from "../../judges/rubric.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { naturalCompare } from "../natural-order.ts";
import { loadRun, paramsLabel } from "../run-index.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** Rubric shorthands of `--rubric` → built-in rubric ids (RWESummary's three binary metrics form one study). */
export const STUDY_RUBRICS: Record<string, string[]> = {
  medmeta: ["medmeta-semantic-equivalence"],
  medconclusion: ["medconclusion-dimensions"],
  rwe: ["rwe-direction-of-effect", "rwe-numbers-accurate", "rwe-completeness"],
};

/** Options of {@link createStudy}. */
export const CreateStudyOptionsSchema = z
  .object({
    /** `medmeta`, `medconclusion`, `rwe`, or a comma-separated list of rubric ids / files. */
    rubric: z.string().min(1),
    raters: z.number().int().min(1).max(100),
    /** Number of items (questions/reviews) to sample; each brings one cell per configuration. */
    items: z.number().int().min(1),
    seed: z.number().int().default(1),
    mode: z.enum(["single", "pairwise"]).default("single"),
    /** Keep only these workflow ids (default: all). */
    workflows: z.array(z.string()).optional(),
    /** JSON file of calibration cells: `[{ "key": cellKey, "scores": { "<rubric>.<dim>": number } }]`. */
    calibration: z.string().optional(),
    /** Study folder (default `<run>/studies/<name>`). */
    out: z.string().optional(),
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .default("study"),
    /**
     * Cells lacking a text the rubric needs (its `inputs`: reference, source, question):
     * `exclude` (default) leaves them out and the study records how many; `refuse` stops.
     */
    missingInputs: z.enum(["exclude", "refuse"]).default("exclude"),
  })
  .strict();
/** Input of {@link CreateStudyOptionsSchema}. */
export type CreateStudyOptions = z.input<typeof CreateStudyOptionsSchema>;

/** One rating task (hidden from raters: keys and configuration). */
export interface StudyTask {
  id: string;
  kind: "single" | "pairwise";
  itemId: string;
  /** Cell keys: one (single) or two (pairwise, configuration order as in `configs`). */
  keys: string[];
  /** Configuration label(s) of the cell(s), e.g. `extractive:mmr | standard-rag | k=5`. */
  configs: string[];
  calibration: boolean;
  /** Calibration only: the reference rating, `<rubric>.<dim>` → score. */
  referenceScores?: Record<string, number>;
}

/** One rater: id and secret link token. */
export interface StudyRater {
  id: string;
  token: string;
}

/** One entry of a rater's sequence: the task and, pairwise, whether A and B are swapped. */
export interface RaterTaskRef {
  taskId: string;
  swap: boolean;
}

/** The study file `study.json`. */
export interface Study {
  version: 1;
  name: string;
  createdAt: string;
  runDir: string;
  mode: "single" | "pairwise";
  seed: number;
  rubrics: Rubric[];
  /** Workflow configurations in Latin-square order. */
  configs: string[];
  /** Cell key → sha256 of (status, output): the run must still hold exactly these. */
  fingerprints: Record<string, string>;
  raters: StudyRater[];
  tasks: StudyTask[];
  /** Rater id → ordered tasks (calibration first). */
  order: Record<string, RaterTaskRef[]>;
  /**
   * Texts the rubrics need besides the output (`reference`, `source`, `question`), and the items
   * and cells left out because they lacked one (absent in studies made before this was recorded).
   */
  requiredInputs?: StudyInput[];
  excluded?: { items: number; cells: number; itemIds: string[] };
}

/** A text a rater must see next to the output, as a rubric's `inputs` name it. */
export type StudyInput = "reference" | "source" | "question";

/** The texts the study's rubrics need besides the candidate output, in a fixed order. */
export function requiredInputs(rubrics: readonly Rubric[]): StudyInput[] {
  const need = new Set(rubrics.flatMap((r) => r.inputs));
  return (["question", "source", "reference"] as const).filter((k) => need.has(k));
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v : null);

/**
 * The texts a rater sees next to a cell's output: the question (`itemMeta.question`, else
 * `intermediate.question`, else `itemMeta.title`), the source (`intermediate.source`, else
 * `intermediate.input`, else `intermediate.prompt`, as the judges read it) and the reference;
 * null when absent or blank.
 */
export function cellInputs(r: Pick<RunRecord, "reference" | "itemMeta" | "intermediate">): Record<StudyInput, string | null> {
  const meta = (r.itemMeta ?? {}) as Record<string, unknown>;
  const inter = (r.intermediate ?? {}) as Record<string, unknown>;
  return {
    question: text(meta.question) ?? text(inter.question) ?? text(meta.title),
    source: text(inter.source) ?? text(inter.input) ?? text(inter.prompt),
    reference: text(r.reference),
  };
}

/** The required inputs a cell lacks (empty when it has them all). */
export function missingCellInputs(r: Pick<RunRecord, "reference" | "itemMeta" | "intermediate">, required: readonly StudyInput[]): StudyInput[] {
  const have = cellInputs(r);
  return required.filter((k) => have[k] === null);
}

/** `model | workflow | params` of a record (the configuration a rater must not see). */
export function configLabel(r: Pick<RunRecord, "model" | "workflow" | "params">): string {
  const p = paramsLabel(r.params);
  return `${r.model} | ${r.workflow}${p ? ` | ${p}` : ""}`;
}

/** sha256 of a cell's status and output. */
export function cellFingerprint(r: Pick<RunRecord, "status" | "output">): string {
  return createHash("sha256")
    .update(JSON.stringify([r.status, r.output]))
    .digest("hex");
}

/** Resolve `--rubric` to rubrics (shorthand, or comma-separated ids/paths). @throws on unknown ids */
export function resolveStudyRubrics(ref: string): Rubric[] {
  const ids =
    STUDY_RUBRICS[ref] ??
    ref
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  return ids.map((id) => resolveRubric(id));
}

/** Seeded Fisher–Yates shuffle (a copy). */
export function shuffled<T>(xs: readonly T[], rng: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Proportional allocation of `n` draws over strata by largest remainder (ties by stratum name),
 * never more than a stratum holds.
 * @returns stratum → number of draws
 */
export function allocate(sizes: Record<string, number>, n: number): Record<string, number> {
  const names = Object.keys(sizes).sort();
  const total = names.reduce((s, k) => s + sizes[k], 0);
  const take = Math.min(n, total);
  const out: Record<string, number> = {};
  const rema: { k: string; r: number }[] = [];
  let used = 0;
  for (const k of names) {
    const exact = (take * sizes[k]) / total;
    out[k] = Math.min(Math.floor(exact), sizes[k]);
    used += out[k];
    rema.push({ k, r: exact - Math.floor(exact) });
  }
  rema.sort((a, b) => b.r - a.r || (a.k < b.k ? -1 : 1));
  for (let i = 0; used < take; i = (i + 1) % rema.length) {
    const k = rema[i].k;
    if (out[k] < sizes[k]) {
      out[k]++;
      used++;
    }
  }
  return out;
}

/**
 * Latin-square slot order for rater `r` at item position `j` over `w` configurations:
 * slot p shows configuration (r + j + p) mod w.
 */
export function latinRow(r: number, j: number, w: number): number[] {
  return Array.from({ length: w }, (_, p) => (r + j + p) % w);
}

/** Cells eligible for rating: ok, prose output, optional workflow filter; first repeat per configuration and item. */
function eligibleCells(records: readonly RunRecord[], workflows?: readonly string[]): Map<string, Map<string, RunRecord>> {
  const byItem = new Map<string, Map<string, RunRecord>>();
  for (const r of records) {
    if (r.status !== "ok" || typeof r.output !== "string" || r.outputKind === "score") continue;
    if (workflows && !workflows.includes(r.workflow)) continue;
    const m = byItem.get(r.itemId) ?? new Map<string, RunRecord>();
    const c = configLabel(r);
    const prev = m.get(c);
    if (!prev || r.repeat < prev.repeat) m.set(c, r);
    byItem.set(r.itemId, m);
  }
  return byItem;
}

/** Calibration entries of a file. @throws naming the file and entry on a bad one */
function readCalibration(file: string, byKey: Map<string, RunRecord>): { record: RunRecord; scores: Record<string, number> }[] {
  const data = JSON.parse(readFileSync(file, "utf8")) as unknown;
  if (!Array.isArray(data)) throw new Error(`${file}: expected a JSON array of {key, scores}`);
  return data.map((e, i) => {
    const o = e as { key?: unknown; scores?: unknown };
    const rec = typeof o.key === "string" ? byKey.get(o.key) : undefined;
    if (!rec) throw new Error(`${file}[${i}]: key ${JSON.stringify(o.key)} is not a cell of the run`);
    if (!o.scores || typeof o.scores !== "object") throw new Error(`${file}[${i}]: scores must be an object "<rubric>.<dim>" → number`);
    return { record: rec, scores: o.scores as Record<string, number> };
  });
}

/** "medmeta-semantic-equivalence needs reference" for each rubric needing one of `missing`. */
function rubricNeeds(rubrics: readonly Rubric[], missing: readonly StudyInput[]): string {
  return rubrics
    .map((r) => ({ id: r.id, need: r.inputs.filter((k): k is StudyInput => (missing as readonly string[]).includes(k)) }))
    .filter((x) => x.need.length)
    .map((x) => `rubric ${x.id} needs ${x.need.join(" and ")}`)
    .join("; ");
}

/**
 * Drop the cells lacking a text the rubrics need (in place), and the items left with none.
 * Calibration cells are chosen by hand, so one lacking a text is an error, as is a sample with
 * nothing left, or any gap under `refuse`.
 * @returns how many items and cells were left out, with the item ids
 * @throws Error naming the rubric, its required fields and the count (and first item ids)
 */
function excludeCellsWithoutInputs(
  runDir: string,
  byItem: Map<string, Map<string, RunRecord>>,
  calibration: readonly { record: RunRecord }[],
  rubrics: readonly Rubric[],
  required: readonly StudyInput[],
  mode: "exclude" | "refuse",
): { items: number; cells: number; itemIds: string[] } {
  for (const c of calibration) {
    const miss = missingCellInputs(c.record, required);
    if (miss.length) throw new Error(`calibration cell ${c.record.key} (${c.record.itemId}) has no ${miss.join(" or ")} text: ${rubricNeeds(rubrics, miss)}`);
  }
  let cells = 0;
  const itemIds: string[] = [];
  const missingKinds = new Set<StudyInput>();
  const total = byItem.size;
  for (const [itemId, m] of byItem) {
    for (const [config, r] of m) {
      const miss = missingCellInputs(r, required);
      if (!miss.length) continue;
      miss.forEach((k) => missingKinds.add(k));
      m.delete(config);
      cells++;
    }
    if (m.size === 0) {
      byItem.delete(itemId);
      itemIds.push(itemId);
    }
  }
  itemIds.sort(naturalCompare);
  if (!cells) return { items: 0, cells: 0, itemIds };
  const kinds = [...missingKinds];
  const what = `${itemIds.length} of ${total} items (${cells} cells) have no ${kinds.join(" or ")} text${itemIds.length ? ` (${itemIds.slice(0, 5).join(", ")}${itemIds.length > 5 ? ", …" : ""})` : ""}; ${rubricNeeds(rubrics, kinds)}`;
  if (byItem.size === 0) throw new Error(`${runDir}: nothing to rate: ${what}. Choose a rubric whose inputs the run has, or a run whose items carry them.`);
  if (mode === "refuse") throw new Error(`${runDir}: ${what}. Leave them out with --missing-inputs exclude, or choose another rubric.`);
  return { items: itemIds.length, cells, itemIds };
}

/**
 * Create a study from a run folder and write `study.json` (and an empty ratings database is made
 * on first serve).
 * @returns the study and its folder
 * @throws Error when the run has no eligible cells, a rubric is unknown, the study folder
 *   already holds a study, or cells lack a text the rubric needs (a calibration cell, every
 *   sampled cell, or any under `missingInputs: "refuse"`; the message names the rubric's inputs)
 */
export function createStudy(runDir: string, options: CreateStudyOptions): { study: Study; dir: string } {
  const o = CreateStudyOptionsSchema.parse(options);
  const run = loadRun(runDir);
  const rubrics = resolveStudyRubrics(o.rubric);
  const byItem = eligibleCells(run.records, o.workflows);
  const byKey = new Map(run.records.map((r) => [r.key, r] as const));
  const calibration = o.calibration ? readCalibration(o.calibration, byKey) : [];
  const calKeys = new Set(calibration.map((c) => c.record.key));
  if (byItem.size === 0) throw new Error(`${run.dir}: no ok cells with a text output${o.workflows ? ` for workflows ${o.workflows.join(", ")}` : ""} to rate`);
  const required = requiredInputs(rubrics);
  const excluded = excludeCellsWithoutInputs(run.dir, byItem, calibration, rubrics, required, o.missingInputs);
  const rng = seedrandom(`study:${o.seed}`);
  // 1. stratified sample of items (strata = datasets)
  const itemsByDataset: Record<string, string[]> = {};
  for (const [itemId, cells] of byItem) {
    const ds = [...cells.values()][0].dataset;
    (itemsByDataset[ds] ??= []).push(itemId);
  }
  const alloc = allocate(Object.fromEntries(Object.entries(itemsByDataset).map(([k, v]) => [k, v.length])), o.items);
  const items = Object.keys(alloc)
    .sort()
    .flatMap((ds) => shuffled([...itemsByDataset[ds]].sort(), rng).slice(0, alloc[ds]))
    .sort();
  // 2. configurations and tasks
  const configs = [...new Set(items.flatMap((i) => [...byItem.get(i)!.keys()]))].sort();
  const tasks: StudyTask[] = [];
  const fingerprints: Record<string, string> = {};
  const addTask = (t: Omit<StudyTask, "id">, recs: RunRecord[]) => {
    tasks.push({ id: `t${tasks.length + 1}`, ...t });
    for (const r of recs) fingerprints[r.key] = cellFingerprint(r);
  };
  calibration.forEach((c) => addTask({ kind: "single", itemId: c.record.itemId, keys: [c.record.key], configs: [configLabel(c.record)], calibration: true, referenceScores: c.scores }, [c.record]));
  const itemTasks = new Map<string, StudyTask[]>();
  for (const itemId of items) {
    const cells = byItem.get(itemId)!;
    const list: StudyTask[] = [];
    if (o.mode === "single") {
      for (const c of configs) {
        const r = cells.get(c);
        if (!r || calKeys.has(r.key)) continue;
        addTask({ kind: "single", itemId, keys: [r.key], configs: [c], calibration: false }, [r]);
        list.push(tasks[tasks.length - 1]);
      }
    } else {
      const present = configs.filter((c) => cells.has(c));
      for (let a = 0; a < present.length; a++) {
        for (let b = a + 1; b < present.length; b++) {
          const ra = cells.get(present[a])!;
          const rb = cells.get(present[b])!;
          addTask({ kind: "pairwise", itemId, keys: [ra.key, rb.key], configs: [present[a], present[b]], calibration: false }, [ra, rb]);
          list.push(tasks[tasks.length - 1]);
        }
      }
    }
    itemTasks.set(itemId, list);
  }
  if (tasks.every((t) => t.calibration)) throw new Error(`${run.dir}: the sample holds nothing to rate${o.mode === "pairwise" ? " (pairwise mode needs items with at least two configurations)" : ""}`);
  // 3. raters: tokens, per-rater item order, Latin-square slot order, pairwise swaps
  const raters: StudyRater[] = Array.from({ length: o.raters }, (_, i) => ({ id: `rater${i + 1}`, token: randomBytes(18).toString("base64url") }));
  const order: Record<string, RaterTaskRef[]> = {};
  raters.forEach((rater, r) => {
    const rrng = seedrandom(`study:${o.seed}:${rater.id}`);
    const seq: RaterTaskRef[] = tasks.filter((t) => t.calibration).map((t) => ({ taskId: t.id, swap: false }));
    shuffled(items, rrng).forEach((itemId, j) => {
      const list = itemTasks.get(itemId)!;
      const slots =
        o.mode === "single"
          ? latinRow(r, j, configs.length)
              .map((ci) => list.find((t) => t.configs[0] === configs[ci]))
              .filter((t): t is StudyTask => !!t)
          : shuffled(list, rrng);
      for (const t of slots) seq.push({ taskId: t.id, swap: o.mode === "pairwise" ? rrng() < 0.5 : false });
    });
    order[rater.id] = seq;
  });
  const study: Study = {
    version: 1,
    name: o.name,
    createdAt: new Date().toISOString(),
    runDir: run.dir,
    mode: o.mode,
    seed: o.seed,
    rubrics,
    configs,
    fingerprints,
    raters,
    tasks,
    order,
    requiredInputs: required,
    excluded,
  };
  const dir = resolve(o.out ?? join(run.dir, "studies", o.name));
  if (existsSync(join(dir, "study.json"))) throw new Error(`${dir}: a study already exists here; choose another --name or --out`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "study.json"), JSON.stringify(study, null, 2) + "\n", { mode: 0o600 });
  return { study, dir };
}

/** Read `study.json` from a study folder. @throws naming the file when missing or invalid */
export function readStudy(dir: string): Study {
  const file = join(resolve(dir), "study.json");
  if (!existsSync(file)) throw new Error(`${file}: no study here (create one with \`${medsynthCommand()} annotate create\`)`);
  const s = JSON.parse(readFileSync(file, "utf8")) as Study;
  if (s.version !== 1 || !Array.isArray(s.tasks) || !Array.isArray(s.raters)) throw new Error(`${file}: not a medsynth study file (version 1)`);
  return s;
}

/**
 * Check that the run still holds the study's cells unchanged.
 * @returns the records by key
 * @throws Error listing the changed or missing cells (first five) when any differ
 */
export function checkStudyRun(study: Study): Map<string, RunRecord> {
  const run = loadRun(study.runDir);
  const byKey = new Map(run.records.map((r) => [r.key, r] as const));
  const problems: string[] = [];
  for (const [key, fp] of Object.entries(study.fingerprints)) {
    const r = byKey.get(key);
    if (!r) problems.push(`cell ${key} is no longer in the run`);
    else if (cellFingerprint(r) !== fp) problems.push(`cell ${key} (${r.itemId}) changed: its status or output differs`);
  }
  if (problems.length) {
    throw new Error(
      `study "${study.name}" refused: ${problems.length} of its ${Object.keys(study.fingerprints).length} cells changed in ${study.runDir} since the study was created — ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? "; …" : ""}. Create a new study from the current run.`,
    );
  }
  return byKey;
}

/** The rating dimensions of a study: `<rubric>.<dim>` with the rubric's scale. */
export function studyDimensions(study: Pick<Study, "rubrics">): { id: string; rubric: Rubric; dim: Rubric["dimensions"][number] }[] {
  return study.rubrics.flatMap((rubric) => rubric.dimensions.map((dim) => ({ id: `${rubric.id}.${dim.id}`, rubric, dim })));
}
