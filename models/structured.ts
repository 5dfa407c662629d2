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

/**
 * Pick the JSON text out of an answer: the body of the first ```json (or bare ```) fence, else the
 * whole text when it starts with `{`/`[`, else the span from the first `{` to the last `}`.
 * @returns the candidate JSON text, or null when the answer holds no JSON-looking part.
 */
export function extractJsonText(answer: string): string | null {
  const t = answer.trim();
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(t);
  if (fence) return fence[1].trim();
  if (t.startsWith("{") || t.startsWith("[")) return t;
  const a = t.indexOf("{");
  const b = t.lastIndexOf("}");
  if (a >= 0 && b > a) return t.slice(a, b + 1);
  return null;
}

/** Outcome of parsing one answer. */
export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Parse and validate an answer against a zod schema.
 * @param answer the model's text (or tool-call arguments).
 * @returns the typed value, or an error describing the JSON or schema problem (paths included).
 */
export function parseStructuredAnswer<S extends z.ZodType>(answer: string, schema: S): ParseOutcome<z.infer<S>> {
  const candidate = extractJsonText(answer);
  if (candidate === null) return { ok: false, error: "answer contains no JSON object" };
  let data: unknown;
  try {
    data = JSON.parse(candidate);
  } catch (e) {
    return { ok: false, error: `answer is not valid JSON: ${(e as Error).message}` };
  }
  const r = schema.safeParse(data);
  if (r.success) return { ok: true, value: r.data as z.infer<S> };
  const issues = r.error.issues.slice(0, 8).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return { ok: false, error: `answer does not match the schema: ${issues.join("; ")}` };
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
