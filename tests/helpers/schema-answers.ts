/**
 * Answers for the scripted OpenAI-compatible server ({@link startScriptedServer}) that are valid
 * for whatever structured request the wiring sends: the estimate-vs-requests test
 * (tests/experiments/call-estimate.test.ts) and bench (experiments/bench/estimate-check.ts) share
 * them. No vitest import: benches load this module too.
 */
import type { Responder, ScriptedRequest } from "./scripted-openai-server.ts";

/** How {@link schemaInstance} fills a schema. */
export interface InstanceOptions {
  /** Every string field gets this text; strings inside arrays get `"<text> mortality <i+1>"` (identical concurrent requests would be answered once). */
  text: string;
  /** Elements per array (at least the schema's `minItems`): loops and fan-outs run to this bound. */
  arrayLength: number;
}

/**
 * A minimal value valid for a JSON Schema: first `anyOf` branch that is not null, first `oneOf`
 * branch, first enum value, the `const`, `minimum` (or 0) for numbers, false for booleans,
 * `opts.arrayLength` elements per array, `opts.text` for strings.
 */
export function schemaInstance(schema: any, opts: InstanceOptions, index?: number): unknown {
  const text = index === undefined ? opts.text : `${opts.text} mortality ${index + 1}`;
  if (!schema || typeof schema !== "object") return text;
  if (schema.anyOf) return schemaInstance(schema.anyOf.find((s: any) => s.type !== "null") ?? schema.anyOf[0], opts, index);
  if (schema.oneOf) return schemaInstance(schema.oneOf[0], opts, index);
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, schemaInstance(v, opts, index)]));
    case "array":
      return Array.from({ length: Math.max(opts.arrayLength, schema.minItems ?? 0) }, (_, i) => schemaInstance(schema.items, opts, i));
    case "number":
    case "integer":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    default:
      return text;
  }
}

/**
 * A responder answering every request: free text (`plainText(n)`, n = the request's 0-based
 * number) when no `response_format` is asked for; for the `grounding_attribution` schema one
 * "unsupported" verdict per claim named in the prompt ("claims 1 to N"); otherwise
 * {@link schemaInstance} of the requested schema.
 */
export function schemaResponder(opts: InstanceOptions & { plainText: (n: number) => string }): Responder {
  return (req: ScriptedRequest, n: number) => {
    const rf = req.body?.response_format?.json_schema;
    if (!rf) return { content: opts.plainText(n) };
    if (rf.name === "grounding_attribution") {
      const claims = Number(/claims 1 to (\d+)/.exec(JSON.stringify(req.body.messages))?.[1] ?? 1);
      return { content: JSON.stringify({ claims: Array.from({ length: claims }, (_, i) => ({ claim: i + 1, verdict: "unsupported", evidence: [] })) }) };
    }
    return { content: JSON.stringify(schemaInstance(rf.schema, opts)) };
  };
}
