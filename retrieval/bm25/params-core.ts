/**
 * The zod-free half of {@link ./params.ts}: BM25 parameter checking and the unique-id check, for
 * the modules a query process loads (the fast engine and the analyzer), so such a process does not
 * load zod (measured: ~7.5 MiB more peak RSS in a 25k-doc query process, ~10 MiB with its
 * compiled code). {@link ./params.ts} keeps the zod schema `Bm25ParamsSchema` for configs that
 * embed BM25 params; tests/retrieval/bm25-params.test.ts checks that both accept and reject the
 * same inputs and give the same values.
 */
import type { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Bm25ParamsSchema } from "./params.ts";

/** BM25 scoring parameters: `z.infer` of `Bm25ParamsSchema` (a type-only import: zod is not loaded). */
export type Bm25Params = z.infer<typeof Bm25ParamsSchema>;

/** A plain object (not null, not an array). */
function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Throws for keys of `obj` outside `allowed`. */
function strictKeys(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(obj)) if (!allowed.includes(key)) throw new Error(`${where}: unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(", ")})`);
}

/** `value` (default `dflt` when undefined) as a finite number satisfying `ok`, else an error naming the field. */
function num(value: unknown, dflt: number, field: string, rule: string, ok: (x: number) => boolean): number {
  const x = value === undefined ? dflt : value;
  if (typeof x !== "number" || !Number.isFinite(x) || !ok(x)) throw new Error(`BM25 params: ${field} must be a number ${rule}, got ${JSON.stringify(value)}`);
  return x;
}

/**
 * Checks partial BM25 params and fills the defaults (k1 1.5, b 0.75, field weights 1/1): the same
 * values and the same accepted inputs as `Bm25ParamsSchema.parse` of `params.ts`.
 * @param input partial params (undefined → all defaults).
 * @returns a fresh {@link Bm25Params}.
 * @throws Error naming the field: an unknown key, a non-number or non-finite value, k1 < 0, b
 *   outside [0, 1], a field weight ≤ 0.
 */
export function parseBm25Params(input: unknown = {}): Bm25Params {
  if (!isRecord(input)) throw new Error(`BM25 params: expected an object, got ${JSON.stringify(input)}`);
  strictKeys(input, ["k1", "b", "fieldWeights"], "BM25 params");
  const k1 = num(input.k1, 1.5, "k1", "≥ 0", (x) => x >= 0);
  const b = num(input.b, 0.75, "b", "in [0, 1]", (x) => x >= 0 && x <= 1);
  const fw = input.fieldWeights === undefined ? {} : input.fieldWeights;
  if (!isRecord(fw)) throw new Error(`BM25 params: fieldWeights must be an object, got ${JSON.stringify(fw)}`);
  strictKeys(fw, ["title", "text"], "BM25 params fieldWeights");
  const title = num(fw.title, 1, "fieldWeights.title", "> 0", (x) => x > 0);
  const text = num(fw.text, 1, "fieldWeights.text", "> 0", (x) => x > 0);
  return { k1, b, fieldWeights: { title, text } };
}

/**
 * Throws when two docs share an id (both engines require unique ids).
 * @throws Error naming the duplicated id and its two positions.
 */
export function assertUniqueIds(docs: readonly Pick<CorpusDoc, "id">[], where: string): void {
  const seen = new Map<string, number>();
  docs.forEach((d, i) => {
    if (typeof d.id !== "string" || d.id.length === 0) throw new Error(`${where}: doc #${i} has an empty or non-string id`);
    const prev = seen.get(d.id);
    if (prev !== undefined) throw new Error(`${where}: duplicate doc id ${JSON.stringify(d.id)} at positions ${prev} and ${i}`);
    seen.set(d.id, i);
  });
}
