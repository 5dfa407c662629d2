/**
 * Readable option errors from zod issues (shared by the CLI commands; no heavy imports).
 */
import type { z } from "zod";

/**
 * One line per zod issue, naming the option or field it concerns, e.g.
 * `--fusion: expected one of rrf, weighted (got "foo")`.
 * @param issues the ZodError's issues.
 * @param name maps an issue path to the name shown (e.g. `["fusion"]` → `--fusion`).
 * @param got maps an issue path to the value the user gave (shown as `(got …)`), or undefined.
 * @param unknownKey text after `<name>: ` for a key the schema does not accept (default "unknown option").
 */
export function formatZodIssues(
  issues: readonly z.core.$ZodIssue[],
  name: (path: PropertyKey[]) => string,
  got: (path: PropertyKey[]) => unknown = () => undefined,
  unknownKey = "unknown option",
): string {
  return issues
    .map((i) => {
      const path = i.path as PropertyKey[];
      const value = got(path);
      const shown = value === undefined ? "" : ` (got ${JSON.stringify(value)})`;
      switch (i.code) {
        case "invalid_value":
          return `${name(path)}: expected ${i.values.length === 1 ? JSON.stringify(i.values[0]) : `one of ${i.values.map((v) => String(v)).join(", ")}`}${shown}`;
        case "too_small":
          return `${name(path)}: expected ${i.origin === "array" || i.origin === "string" ? `length ${i.inclusive === false ? ">" : "≥"} ${i.minimum}` : `a number ${i.inclusive === false ? ">" : "≥"} ${i.minimum}`}${shown}`;
        case "too_big":
          return `${name(path)}: expected ${i.origin === "array" || i.origin === "string" ? `length ${i.inclusive === false ? "<" : "≤"} ${i.maximum}` : `a number ${i.inclusive === false ? "<" : "≤"} ${i.maximum}`}${shown}`;
        case "invalid_type":
          return `${name(path)}: expected ${i.expected === "int" ? "an integer" : `${/^[aeiou]/.test(i.expected) ? "an" : "a"} ${i.expected}`}${shown}`;
        case "unrecognized_keys":
          return i.keys.map((k) => `${name([...path, k])}: ${unknownKey}`).join("\n");
        default:
          return `${name(path)}: ${i.message}${shown}`;
      }
    })
    .join("\n");
}

/** Value at `path` inside `obj`, or undefined. */
export function valueAt(obj: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = obj;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}
