/**
 * `numeric` perturbation: alters the numbers a synthesis rests on, in a seeded share (`strength`)
 * of the passages, by fixed documented rules:
 * - ratio estimates (OR, RR, HR, IRR, aOR, aHR, "odds/risk/hazard ratio", "relative risk") are
 *   flipped across 1: x → 1/x, and their 95% CI (l, u) → (1/u, 1/l), same decimals — an effect
 *   that favoured one arm now favours the other, with a CI on the other side of the null;
 * - p-values cross 0.05: p < 0.05 (or "p = 0.03") → "p = 0.32"; p ≥ 0.05 → "p = 0.004";
 * - percentages x% → (100 − x)%, so "23% vs 41%" becomes "77% vs 59%" (the comparison reverses).
 * `targets` limits the rules applied. Every replacement is recorded (before/after).
 * @see MedMeta §5 (models synthesise altered evidence into coherent false conclusions); RWESummary
 *   (effect sizes, CIs and p-values carry the summary).
 */
import { z } from "zod";
import { chooseFraction } from "./select.ts";
import type { PerturbationChange, PerturbationOperator } from "./types.ts";

/** Operator id. */
export const NUMERIC_OP = "numeric";

/** Kinds of numbers the operator alters. */
export const NUMERIC_TARGETS = ["ratio", "p", "percent"] as const;

/** Config of `numeric`. */
export const NumericOpSchema = z
  .object({
    op: z.literal(NUMERIC_OP),
    /** Share of passages altered, 0–1. */
    strength: z.number().min(0).max(1).default(1),
    targets: z
      .array(z.enum(NUMERIC_TARGETS))
      .min(1)
      .default([...NUMERIC_TARGETS]),
  })
  .strict();

const decimals = (s: string): number => (s.includes(".") ? s.split(".")[1].length : 0);
const fmt = (x: number, d: number): string => x.toFixed(Math.max(d, 2));
const recip = (s: string): string => fmt(1 / Number(s), decimals(s));

const NUM = String.raw`(\d+(?:\.\d+)?)`;
const RATIO_RE = new RegExp(
  String.raw`\b((?:a|[Aa]djusted )?(?:OR|RR|HR|IRR)|[Oo]dds ratio|[Rr]isk ratio|[Hh]azard ratio|[Rr]elative risk|[Rr]ate ratio)(\s*(?:\(|,)?\s*(?:=|:|of|was)?\s*)${NUM}` +
    String.raw`(?:(\s*(?:\(|\[|,|;)?\s*(?:95\s*%\s*)?(?:CI|confidence interval)?\s*[:=,]?\s*)${NUM}(\s*(?:-|–|to|,)\s*)${NUM})?`,
  "g",
);
const P_RE = /\b([Pp])(\s*)([<=≤>≥])(\s*)(0?\.\d+)/g;
const PCT_RE = /(?<![\d.])(\d{1,3}(?:\.\d+)?)(\s?%)(?!\s*(?:CI\b|confidence))/g;

/**
 * Apply the rules to one text.
 * @returns the new text and the replacements made (kind, before, after)
 */
export function alterNumbers(text: string, targets: readonly string[]): { text: string; changes: { kind: string; before: string; after: string }[] } {
  const changes: { kind: string; before: string; after: string }[] = [];
  let out = text;
  if (targets.includes("ratio")) {
    out = out.replace(RATIO_RE, (m, name: string, sep: string, est: string, ciSep?: string, lo?: string, dash?: string, hi?: string) => {
      if (Number(est) <= 0) return m;
      let after = `${name}${sep}${recip(est)}`;
      if (lo !== undefined && hi !== undefined && Number(lo) > 0 && Number(hi) > 0) after += `${ciSep}${recip(hi)}${dash}${recip(lo)}`;
      else if (lo !== undefined) after += `${ciSep}${lo}${dash}${hi}`;
      changes.push({ kind: "ratio", before: m, after });
      return after;
    });
  }
  if (targets.includes("p")) {
    out = out.replace(P_RE, (m, p: string, s1: string, op: string, s2: string, v: string) => {
      const significant = op === "<" || op === "≤" ? Number(v) <= 0.05 : op === "=" ? Number(v) < 0.05 : false;
      const after = `${p}${s1}=${s2}${significant ? "0.32" : "0.004"}`;
      changes.push({ kind: "p", before: m, after });
      return after;
    });
  }
  if (targets.includes("percent")) {
    out = out.replace(PCT_RE, (m, v: string, pct: string) => {
      const x = Number(v);
      if (x > 100) return m;
      const after = `${(100 - x).toFixed(decimals(v))}${pct}`;
      changes.push({ kind: "percent", before: m, after });
      return after;
    });
  }
  return { text: out, changes };
}

/** Build the operator. @throws ZodError on a bad config. */
export function createNumericOp(config: z.input<typeof NumericOpSchema>): PerturbationOperator {
  const cfg = NumericOpSchema.parse(config);
  return {
    id: NUMERIC_OP,
    async apply(evidence, ctx) {
      const chosen = chooseFraction(
        evidence.map((e) => e.id),
        cfg.strength,
        ctx.seed,
        ctx.itemId,
        NUMERIC_OP,
      );
      const changes: PerturbationChange[] = [];
      const out = evidence.map((p) => {
        if (!chosen.has(p.id)) return p;
        const r = alterNumbers(p.text, cfg.targets);
        for (const c of r.changes) changes.push({ op: NUMERIC_OP, docId: p.id, ...c });
        return { ...p, text: r.text };
      });
      const applied = changes.length > 0;
      const reason =
        chosen.size === 0
          ? `strength ${cfg.strength} selects no passage of ${evidence.length}`
          : !applied
            ? `no ${cfg.targets.join("/")} numbers in the ${chosen.size} selected passage(s)`
            : undefined;
      return { evidence: out, step: { op: NUMERIC_OP, applied, ...(reason ? { reason } : {}), changes, inserted: [] } };
    },
  };
}
