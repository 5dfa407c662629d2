/**
 * Structured outputs: zod schema → JSON Schema for the endpoint, and lenient parsing of answers
 * (plain JSON, ```json fenced``` JSON, JSON embedded in prose, tool-call arguments) validated by
 * zod. Used by every {@link ChatModel.structured} implementation.
 */
import { z } from "zod";
import { sha256Of } from "./call-cache.ts";
import type { ChatMessage } from "./types.ts";

/** JSON Schema of a zod schema for an endpoint, plus whether OpenAI's strict mode can accept it. */
export interface EndpointJsonSchema {
  schema: Record<string, unknown>;
  /** True when every object lists all its properties as required and forbids extra ones. */
  strictCompatible: boolean;
}

function isStrictCompatible(node: unknown): boolean {
  if (!node || typeof node !== "object") return true;
  if (Array.isArray(node)) return node.every(isStrictCompatible);
  const n = node as Record<string, unknown>;
  if (n.type === "object" || n.properties) {
    const props = Object.keys((n.properties as Record<string, unknown>) ?? {});
    const req = new Set((n.required as string[]) ?? []);
    if (n.additionalProperties !== false || props.some((p) => !req.has(p))) return false;
  }
  return Object.values(n).every(isStrictCompatible);
}

/**
 * Convert a zod schema to the JSON Schema sent to endpoints (`$schema` removed).
 * @throws Error naming the schema when zod cannot express it in JSON Schema (e.g. transforms).
 */
export function toEndpointJsonSchema(schema: z.ZodType, name = "schema"): EndpointJsonSchema {
  let js: Record<string, unknown>;
  try {
    js = z.toJSONSchema(schema) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`Structured schema "${name}" cannot be converted to JSON Schema: ${(e as Error).message}`);
  }
  delete js.$schema;
  return { schema: js, strictCompatible: isStrictCompatible(js) };
}

/** SHA-256 (hex, first 16 chars) of the schema's JSON Schema; enters the cache key. */
export function schemaHash(schema: z.ZodType): string {
  return sha256Of(toEndpointJsonSchema(schema).schema).slice(0, 16);
}

/** Reasoning blocks some models put before their answer (`<think>`, `<thinking>`, `<reasoning>`, `<reflection>`). */
const REASONING_TAGS = ["think", "thinking", "reasoning", "reflection"];

/**
 * Remove reasoning blocks from an answer: every `<think>…</think>` (and `<thinking>`,
 * `<reasoning>`, `<reflection>`), an unclosed block up to the end (a cut-off reasoning), and
 * everything before a closing tag whose opening tag the server's chat template already consumed
 * (DeepSeek-R1 style).
 * @returns the answer text the model meant to give (may be empty).
 */
export function stripReasoning(answer: string): string {
  let t = answer;
  for (const tag of REASONING_TAGS) {
    t = t.replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, "gi"), " ");
    const close = new RegExp(`^[\\s\\S]*?</${tag}>`, "i");
    if (!new RegExp(`<${tag}>`, "i").test(t)) t = t.replace(close, " ");
    t = t.replace(new RegExp(`<${tag}>[\\s\\S]*$`, "i"), " ");
  }
  return t.trim();
}

/**
 * Spans of the complete top-level JSON objects in a text, in order: balanced `{…}` with strings
 * (and braces inside them) skipped. An object cut off before its closing brace is not a span.
 */
export function jsonObjectSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      if (depth > 0) inString = true;
    } else if (ch === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === "}" && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}

/**
 * Pick the JSON text out of an answer, after removing reasoning blocks ({@link stripReasoning}):
 * the LAST complete top-level JSON object that parses (a judge that quotes a fenced example early
 * in its reasoning and gives its verdict at the end is read by its verdict); when the answer holds
 * no object, the body of the first ``` fence or the whole text when it starts with `[`.
 * @returns the candidate JSON text, or null when the answer holds no JSON-looking part.
 */
export function extractJsonText(answer: string): string | null {
  const t = stripReasoning(answer);
  const spans = jsonObjectSpans(t);
  for (let i = spans.length - 1; i >= 0; i--) {
    try {
      JSON.parse(spans[i]);
      return spans[i];
    } catch {
      /* not JSON (e.g. a brace in prose): try the one before */
    }
  }
  if (spans.length) return spans[spans.length - 1];
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(t);
  if (fence) return fence[1].trim();
  if (t.startsWith("{") || t.startsWith("[")) return t;
  return null;
}

/** Outcome of parsing one answer. */
export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Replace numeric strings (`"4"`, `" 3.5 "`) by numbers at the paths where the schema expected a
 * number: judges often quote their scores. Other strings are left alone.
 * @returns a copy of `data` with the fixes, or null when there was nothing to fix.
 */
function coerceNumericStrings(data: unknown, issues: readonly { code: string; path: PropertyKey[]; expected?: unknown }[]): unknown {
  let changed = false;
  const copy = structuredClone(data) as Record<PropertyKey, unknown>;
  for (const iss of issues) {
    if (iss.code !== "invalid_type" || iss.expected !== "number" || iss.path.length === 0) continue;
    let parent: Record<PropertyKey, unknown> | undefined = copy;
    for (const k of iss.path.slice(0, -1)) parent = parent?.[k as string] as Record<PropertyKey, unknown> | undefined;
    const last = iss.path[iss.path.length - 1] as string;
    const v = parent?.[last];
    if (parent && typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) {
      parent[last] = Number(v);
      changed = true;
    }
  }
  return changed ? copy : null;
}

/**
 * Parse and validate an answer against a zod schema: reasoning blocks removed, the last complete
 * JSON object taken ({@link extractJsonText}), numeric strings accepted where a number is expected.
 * An answer holding several different objects that each validate fails (`conflictingAnswers`):
 * a verdict is never picked silently among them. Never fills in a value the answer did not give.
 * @param answer the model's text (or tool-call arguments).
 * @returns the typed value, or an error describing the JSON or schema problem (paths included).
 */
export function parseStructuredAnswer<S extends z.ZodType>(answer: string, schema: S): ParseOutcome<z.infer<S>> {
  const conflict = conflictingAnswers(answer, schema);
  if (conflict) return { ok: false, error: conflict };
  const candidate = extractJsonText(answer);
  if (candidate === null) return { ok: false, error: "answer contains no JSON object" };
  let data: unknown;
  try {
    data = JSON.parse(candidate);
  } catch (e) {
    return { ok: false, error: `answer is not valid JSON: ${(e as Error).message}` };
  }
  let r = schema.safeParse(data);
  if (!r.success) {
    const fixed = coerceNumericStrings(data, r.error.issues as never);
    if (fixed !== null) r = schema.safeParse(fixed);
  }
  if (r.success) return { ok: true, value: r.data as z.infer<S> };
  const issues = r.error.issues.slice(0, 8).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return { ok: false, error: `answer does not match the schema: ${issues.join("; ")}` };
}

/** Validate parsed JSON against a schema, accepting numeric strings where numbers are expected. */
function validateData<S extends z.ZodType>(data: unknown, schema: S): z.ZodSafeParseResult<z.infer<S>> {
  let r = schema.safeParse(data);
  if (!r.success) {
    const fixed = coerceNumericStrings(data, r.error.issues as never);
    if (fixed !== null) r = schema.safeParse(fixed);
  }
  return r as z.ZodSafeParseResult<z.infer<S>>;
}

/**
 * Several different valid answers in one reply (e.g. a judge's own verdict and then a quoted
 * example with other scores): which one the model meant cannot be known, so none is picked.
 * Identical repeats are one answer.
 * @returns the error naming how many different answers were found and their values (shortened), or null.
 */
export function conflictingAnswers(answer: string, schema: z.ZodType): string | null {
  const distinct = new Map<string, number>();
  for (const span of jsonObjectSpans(stripReasoning(answer))) {
    let data: unknown;
    try {
      data = JSON.parse(span);
    } catch {
      continue;
    }
    const r = validateData(data, schema);
    if (r.success) {
      const k = JSON.stringify(r.data);
      if (!distinct.has(k)) distinct.set(k, distinct.size);
    }
  }
  if (distinct.size < 2) return null;
  const shown = [...distinct.keys()].map((k) => (k.length > 120 ? `${k.slice(0, 117)}...` : k));
  return `answer holds ${distinct.size} different valid answers (${shown.join(" | ")}); none is picked`;
}

/** Whether an error is `conflictingAnswers`'s (several different valid answers). */
export function isConflictError(error: string): boolean {
  return /\bdifferent valid answers\b/.test(error);
}

/** System instruction appended for `jsonMode`/`promptOnly` endpoints (our own words). */
export function jsonInstruction(jsonSchema: Record<string, unknown>): ChatMessage {
  return {
    role: "system",
    content: `Reply with one JSON object and nothing else. It must conform to this JSON Schema:\n${JSON.stringify(jsonSchema)}`,
  };
}

/** Follow-up user message sent after an answer failed validation (our own words). */
export function correctionMessage(error: string): ChatMessage {
  return {
    role: "user",
    content: `Your previous reply could not be used (${error}). Reply again with only a JSON object that satisfies the requested schema.`,
  };
}
