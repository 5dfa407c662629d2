/**
 * A judge panel (jury): several judges × one or more rubrics × repeats, and an aggregation policy
 * (mean by default; median; majority vote for binary rubrics). Per-judge scores are always kept;
 * missing answers are excluded from the aggregate (never counted as 0) and reported as each
 * judge's missing rate.
 *
 * @see MedMeta §3 (three-judge panel, scores averaged), RWESummary "Evaluations" (three-member
 *   jury, each metric its own call, final score = mean of jury scores), MedConclusion §3.2 (two judges).
 */
import { interpolateEnv } from "../models/env-interpolation.ts";
import { dirname, resolve } from "node:path";
import pLimit from "p-limit";
import { readConfigValue } from "../models/config-file.ts";
import { z } from "zod";
import type { ChatModel } from "../models/types.ts";
import type { JudgeScoreEntry, RunRecord } from "../results/run-record.ts";
import { createJudge, JudgeParamsSchema, loadJudgeTemplate, type Judge, type JudgeInput, type JudgeVerdict } from "./judge.ts";
import { formatZodIssues, resolveRubric, type Rubric } from "./rubric.ts";

/** Aggregation policies. `majority` is only valid for binary rubrics. */
export const AGGREGATIONS = ["mean", "median", "majority"] as const;
/** One of {@link AGGREGATIONS}. */
export type Aggregation = (typeof AGGREGATIONS)[number];

/** One judge of a panel file. */
export const PanelJudgeSpecSchema = z
  .object({
    /** Judge id stored in results (unique within the panel). */
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "judge id: letters, digits, . _ : -"),
    /** Model id understood by the model registry (e.g. "openai:gpt-4o-mini"). */
    model: z.string().min(1),
    /** Name of an entry of the panel's `endpoints` map (base URL, API-key env var …) for this model. */
    endpoint: z.string().min(1).optional(),
    /** Prompt template id or path overriding the rubric's default template. */
    template: z.string().min(1).optional(),
    params: JudgeParamsSchema,
    attempts: z.number().int().min(1).max(5).default(2),
    /** Per-HTTP-attempt timeout in ms; unset = the endpoint's `timeoutMs`. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
/** {@link PanelJudgeSpecSchema} after parsing (defaults applied). */
export type PanelJudgeSpec = z.infer<typeof PanelJudgeSpecSchema>;

/**
 * A panel file (`panel.yaml`):
 * ```yaml
 * rubric: medmeta-semantic-equivalence        # or a list (RWESummary: three rubrics), or a path
 * aggregation: mean                            # mean | median | majority (binary rubrics only)
 * repeats: 1
 * endpoints: { local: { baseURL: "http://127.0.0.1:8000/v1", apiKeyEnv: "OPENAI_API_KEY" } }
 * judges:
 *   - { id: qwen-judge, model: "openai:qwen3-235b", endpoint: local }
 * ```
 * Endpoint entries are passed as they are to the model factory, which validates them.
 */
export const PanelConfigSchema = z
  .object({
    id: z.string().min(1).default("panel"),
    rubric: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    judges: z.array(PanelJudgeSpecSchema).min(1),
    aggregation: z.enum(AGGREGATIONS).default("mean"),
    /** Samples per judge × rubric × record (each with its own repeat index in the cache key). */
    repeats: z.number().int().min(1).max(20).default(1),
    /** Judge calls in flight at once for one record. */
    concurrency: z.number().int().min(1).max(64).default(4),
    endpoints: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  })
  .strict()
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.judges.forEach((j, i) => {
      if (seen.has(j.id)) ctx.addIssue({ code: "custom", path: ["judges", i, "id"], message: `duplicate judge id "${j.id}"` });
      seen.add(j.id);
      if (j.endpoint && !(j.endpoint in p.endpoints)) {
        ctx.addIssue({
          code: "custom",
          path: ["judges", i, "endpoint"],
          message: `endpoint "${j.endpoint}" is not defined under 'endpoints' (defined: ${Object.keys(p.endpoints).join(", ") || "none"})`,
        });
      }
    });
  });
/** What a caller may pass for {@link PanelConfigSchema} (keys with defaults are optional). */
export type PanelConfig = z.input<typeof PanelConfigSchema>;
/** {@link PanelConfigSchema} after parsing (defaults applied). */
export type ParsedPanelConfig = z.output<typeof PanelConfigSchema>;

/**
 * Validate a parsed panel config.
 * @throws Error `panel <origin>: <field>: <problem>`
 */
export function parsePanelConfig(data: unknown, origin = "<inline>"): ParsedPanelConfig {
  const r = PanelConfigSchema.safeParse(data);
  if (!r.success) throw new Error(`panel ${origin}: ${formatZodIssues(r.error)}`);
  return r.data;
}

/**
 * Load `panel.yaml` (or `.json`).
 * @returns the validated config and the folder relative rubric/template paths resolve against
 * `${NAME}` / `${NAME:-default}` in string values are replaced from `env` (models/env-interpolation.ts).
 * @throws Error naming the file and the field (also for an unset variable without default)
 */
export function loadPanelConfig(path: string, env: NodeJS.ProcessEnv = process.env): { config: ParsedPanelConfig; baseDir: string } {
  let data = readConfigValue(path, "panel");
  try {
    data = interpolateEnv(data, env);
  } catch (err) {
    throw new Error(`panel ${path}: ${(err as Error).message}`);
  }
  return { config: parsePanelConfig(data, path), baseDir: dirname(resolve(path)) };
}

/** Builds the chat model of one judge; the CLI passes the model registry's `createChatModel`. */
export type JudgeModelFactory = (spec: PanelJudgeSpec, endpoint: Record<string, unknown> | undefined) => ChatModel;

/** Aggregate of one rubric dimension over the panel for one record. */
export interface DimensionAggregate {
  /** Panel score; null when no judge gave a usable score. */
  value: number | null;
  /** Per-judge value (mean over that judge's present repeats; majority: its vote), null when all missing. */
  perJudge: Record<string, number | null>;
  nJudges: number;
  /** Judges with a usable score. */
  nPresent: number;
  /** Majority vote only: the present judges split evenly (resolved to 0, see {@link majorityVote}). */
  tie?: boolean;
}

/** Aggregate of one record: rubric id → dimension id → aggregate. */
export type PanelAggregate = Record<string, Record<string, DimensionAggregate>>;

/** Arithmetic mean; null for an empty list. */
function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Median (mean of the two middle values for an even count); null for an empty list. */
export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Majority vote over binary votes (0/1).
 * Tie rule: an even split resolves to **0** (the conservative verdict — a split jury does not
 * certify that a summary is correct) and is flagged `tie: true`.
 * @returns `{value: null}` for no votes
 */
export function majorityVote(votes: number[]): { value: number | null; tie: boolean } {
  if (!votes.length) return { value: null, tie: false };
  const ones = votes.filter((v) => v >= 0.5).length;
  const zeros = votes.length - ones;
  if (ones === zeros) return { value: 0, tie: true };
  return { value: ones > zeros ? 1 : 0, tie: false };
}

/**
 * Aggregate judge verdicts for one record.
 * Each judge's repeats are reduced first (mean; majority for `majority`), then the judges are
 * combined by the policy. Missing verdicts are left out; a dimension with no present judge is null.
 * @param entries verdicts of one record (any rubrics; entries of other rubrics are ignored)
 * @param rubrics the rubrics to aggregate
 * @param judgeIds every judge of the panel (so absent judges show as null in `perJudge`)
 * @param policy aggregation policy
 * @throws Error when `majority` is used with a non-binary rubric
 */
export function aggregateVerdicts(entries: JudgeScoreEntry[], rubrics: Rubric[], judgeIds: string[], policy: Aggregation): PanelAggregate {
  const out: PanelAggregate = {};
  for (const rubric of rubrics) {
    if (policy === "majority" && rubric.scale.type !== "binary")
      throw new Error(`aggregation "majority" needs a binary rubric; ${rubric.id} is ${rubric.scale.type} ${rubric.scale.min}-${rubric.scale.max}`);
    out[rubric.id] = {};
    for (const dim of rubric.dimensions) {
      const perJudge: Record<string, number | null> = {};
      for (const j of judgeIds) {
        const xs = entries
          .filter((e) => e.judgeId === j && e.rubricId === rubric.id && e.status === "ok")
          .map((e) => e.scores[dim.id])
          .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
        perJudge[j] = policy === "majority" ? majorityVote(xs).value : mean(xs);
      }
      const present = Object.values(perJudge).filter((v): v is number => v !== null);
      const agg: DimensionAggregate = { value: null, perJudge, nJudges: judgeIds.length, nPresent: present.length };
      if (policy === "mean") agg.value = mean(present);
      else if (policy === "median") agg.value = median(present);
      else {
        const v = majorityVote(present);
        agg.value = v.value;
        if (v.tie) agg.tie = true;
      }
      out[rubric.id][dim.id] = agg;
    }
  }
  return out;
}

/** Missing-answer counts of one judge (pooled over records, rubrics and repeats). */
export interface JudgeMissingRate {
  judgeId: string;
  /** Verdicts (judge calls asked for). */
  total: number;
  missing: number;
  /** missing / total, pooled: every verdict weighs the same, whatever its rubric. */
  rate: number;
  /** Of the missing, those caused by a record lacking an input the rubric needs (no call made). */
  noInput: number;
  byRubric: Record<string, { total: number; missing: number; rate: number }>;
}

/**
 * Each judge's missing rate. Rates are pooled over all verdicts (weighted by the number of
 * verdicts per rubric), not an average of per-rubric rates.
 * @param entries verdicts of any number of records
 * @returns one row per judge, in order of first appearance
 */
export function missingRates(entries: JudgeScoreEntry[]): JudgeMissingRate[] {
  const rows = new Map<string, JudgeMissingRate>();
  for (const e of entries) {
    let r = rows.get(e.judgeId);
    if (!r) rows.set(e.judgeId, (r = { judgeId: e.judgeId, total: 0, missing: 0, rate: 0, noInput: 0, byRubric: {} }));
    const b = (r.byRubric[e.rubricId] ??= { total: 0, missing: 0, rate: 0 });
    r.total++;
    b.total++;
    if (e.status === "missing") {
      r.missing++;
      b.missing++;
      if ((e as Partial<JudgeVerdict>).attempts === 0) r.noInput++;
    }
  }
  for (const r of rows.values()) {
    r.rate = r.total ? r.missing / r.total : 0;
    for (const b of Object.values(r.byRubric)) b.rate = b.total ? b.missing / b.total : 0;
  }
  return [...rows.values()];
}

/** The judge inputs of a run record: candidate = output, reference, and the source text from `intermediate`. */
export function judgeInputFromRecord(record: RunRecord): JudgeInput | null {
  if (record.status !== "ok" || typeof record.output !== "string" || !record.output.trim()) return null;
  const inter = record.intermediate ?? {};
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);
  const question = str(inter.question) ?? str(record.itemMeta?.question);
  return {
    candidate: record.output,
    reference: record.reference,
    /** The text the output was written from: `intermediate.source`, else `intermediate.input`, else `intermediate.prompt`. */
    source: str(inter.source) ?? str(inter.input) ?? str(inter.prompt),
    question,
  };
}

/** Result of judging one record. */
export interface PanelRecordResult {
  /** The record's judge scores: existing entries kept, new verdicts appended. */
  judgeScores: JudgeScoreEntry[];
  /** Verdicts produced by this call. */
  added: JudgeVerdict[];
  /** Aggregate over all of `judgeScores` for the panel's rubrics. */
  aggregate: PanelAggregate;
  /** Judge calls and tokens of this call (cache hits included as calls). */
  usage: { calls: number; inputTokens: number; outputTokens: number; latencyMs: number };
}

/** A ready panel. */
export interface Panel {
  readonly id: string;
  readonly rubrics: Rubric[];
  readonly judgeIds: string[];
  readonly aggregation: Aggregation;
  readonly repeats: number;
  /** One {@link Judge} per (judge spec × rubric). */
  readonly judges: Judge[];
  /**
   * Judge one input with every judge × rubric × repeat not yet done.
   * @param input texts to judge
   * @param opts `done` lists verdicts to skip (resume); `signal` aborts
   */
  judgeInput(input: JudgeInput, opts?: { done?: JudgeScoreEntry[]; signal?: AbortSignal }): Promise<JudgeVerdict[]>;
  /**
   * Judge one run record (resumable): verdicts already in `record.judgeScores` for the same
   * judge + rubric + repeat are kept and not asked again (`retryMissing` re-asks missing ones).
   * Records that did not finish (`status` ≠ ok or no output) are returned unchanged with no verdicts.
   */
  judgeRecord(record: RunRecord, opts?: { retryMissing?: boolean; signal?: AbortSignal }): Promise<PanelRecordResult>;
  /** Aggregate verdicts of one record by the panel's policy. */
  aggregate(entries: JudgeScoreEntry[]): PanelAggregate;
}

const repeatOf = (e: JudgeScoreEntry) => (e as Partial<JudgeVerdict>).repeat ?? 0;

/**
 * Build a panel.
 * @param config panel config (validated here)
 * @param deps `modelFor` builds each judge's chat model; `baseDir` resolves relative rubric/template paths
 * @throws Error for an invalid config, an unknown rubric, or `majority` with a non-binary rubric
 */
export function createPanel(
  config: PanelConfig | ParsedPanelConfig,
  deps: {
    modelFor: JudgeModelFactory;
    baseDir?: string;
    rubrics?: Rubric[] /** Judge calls in flight at once, overriding the panel's `concurrency` (a batch run: unbounded, so a wave holds every cell's verdicts). */;
    concurrency?: number;
  },
): Panel {
  const cfg = parsePanelConfig(config);
  const baseDir = deps.baseDir ?? process.cwd();
  const refs = Array.isArray(cfg.rubric) ? cfg.rubric : [cfg.rubric];
  const rubrics = refs.map((ref) => deps.rubrics?.find((r) => r.id === ref) ?? resolveRubric(ref, baseDir));
  const ids = new Set<string>();
  for (const r of rubrics) {
    if (ids.has(r.id)) throw new Error(`panel ${cfg.id}: rubric "${r.id}" listed twice`);
    ids.add(r.id);
    if (cfg.aggregation === "majority" && r.scale.type !== "binary")
      throw new Error(`panel ${cfg.id}: aggregation "majority" needs binary rubrics; ${r.id} is ${r.scale.type} ${r.scale.min}-${r.scale.max}`);
  }
  const judges: Judge[] = [];
  for (const spec of cfg.judges) {
    const model = deps.modelFor(spec, spec.endpoint ? cfg.endpoints[spec.endpoint] : undefined);
    const override = spec.template ? loadJudgeTemplate(spec.template, { baseDir }) : undefined;
    for (const rubric of rubrics) {
      judges.push(
        createJudge({ id: spec.id, params: spec.params, attempts: spec.attempts, ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}) }, { model, rubric, template: override }),
      );
    }
  }
  const judgeIds = cfg.judges.map((j) => j.id);
  const limit = pLimit(deps.concurrency ?? cfg.concurrency);

  const judgeInput: Panel["judgeInput"] = async (input, opts = {}) => {
    const done = new Set((opts.done ?? []).map((e) => `${e.judgeId}\u0000${e.rubricId}\u0000${repeatOf(e)}`));
    const tasks: Promise<JudgeVerdict>[] = [];
    for (const judge of judges) {
      for (let repeat = 0; repeat < cfg.repeats; repeat++) {
        if (done.has(`${judge.id}\u0000${judge.rubric.id}\u0000${repeat}`)) continue;
        tasks.push(limit(() => judge.score(input, { repeat, signal: opts.signal })));
      }
    }
    return Promise.all(tasks);
  };

  const aggregate = (entries: JudgeScoreEntry[]) => aggregateVerdicts(entries, rubrics, judgeIds, cfg.aggregation);

  return {
    id: cfg.id,
    rubrics,
    judgeIds,
    aggregation: cfg.aggregation,
    repeats: cfg.repeats,
    judges,
    judgeInput,
    aggregate,
    async judgeRecord(record, opts = {}) {
      const existing = record.judgeScores ?? [];
      const input = judgeInputFromRecord(record);
      const usage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0 };
      if (!input) return { judgeScores: existing, added: [], aggregate: aggregate(existing), usage };
      const kept = opts.retryMissing ? existing.filter((e) => e.status !== "missing" || !judgeIds.includes(e.judgeId) || !ids.has(e.rubricId)) : existing;
      const added = await judgeInput(input, { done: kept, signal: opts.signal });
      for (const v of added) {
        usage.calls += v.attempts;
        if (v.call) {
          usage.inputTokens += v.call.usage?.inputTokens ?? 0;
          usage.outputTokens += v.call.usage?.outputTokens ?? 0;
          usage.latencyMs += v.call.latencyMs;
        }
      }
      const judgeScores = [...kept, ...added];
      return { judgeScores, added, aggregate: aggregate(judgeScores), usage };
    },
  };
}
