/**
 * Settings that change a cell's output but are not part of its key (experiments/cells.ts keys a
 * cell by dataset, item, model, workflow, parameters and repeat): the `retrieval` block (corpus,
 * mode, embedder, candidates …), the `seed` and the `promptDir`. When an output folder's results
 * were computed with other values of these, reusing its finished cells would label old outputs
 * with the new settings (spec.json is rewritten with the new config), so a run refuses unless the
 * user asks to reuse them.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import stringify from "safe-stable-stringify";
import { ConfigError, type ExperimentConfig } from "./config.ts";

/** Top-level config fields that shape every cell's output without being in the cell key. */
export const NON_KEY_SETTINGS = ["retrieval", "seed", "promptDir"] as const;

const show = (v: unknown) => (v === undefined ? "(unset)" : (stringify(v) ?? "(unset)"));

/**
 * Retriever options that change only speed or memory, never a result (the on-disk BM25's threads
 * per query, page cache and search strategy: same hits and scores, tests/retrieval/bm25-disk-parallel.test.ts,
 * tests/retrieval/bm25-disk-taat.test.ts):
 * left out of the comparison, so changing them never blocks reusing finished cells.
 */
export const SPEED_ONLY_RETRIEVER_OPTIONS = [
  ["bm25Disk", "threads"],
  ["bm25Disk", "pageCacheMiB"],
  ["bm25Disk", "strategy"],
] as const;

/** A copy of retriever options without {@link SPEED_ONLY_RETRIEVER_OPTIONS} (an emptied `bm25Disk` dropped). */
function withoutSpeedOnly(options: unknown): unknown {
  if (!options || typeof options !== "object" || Array.isArray(options)) return options;
  const out: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const [block, key] of SPEED_ONLY_RETRIEVER_OPTIONS) {
    const b = out[block];
    if (!b || typeof b !== "object" || Array.isArray(b)) continue;
    const { [key]: _gone, ...rest } = b as Record<string, unknown>;
    if (Object.keys(rest).length) out[block] = rest;
    else delete out[block];
  }
  return out;
}

/** The `retrieval` block as compared: options and each named setting without the speed-only keys. */
function comparableRetrieval(r: Record<string, unknown>): Record<string, unknown> {
  const settings = r.settings && typeof r.settings === "object" ? Object.fromEntries(Object.entries(r.settings as Record<string, unknown>).map(([k, v]) => [k, withoutSpeedOnly(v)])) : r.settings;
  return { ...r, options: withoutSpeedOnly(r.options), ...(r.settings !== undefined ? { settings } : {}) };
}

/**
 * The non-key settings that differ between a folder's previous config and `next`, one line each
 * (`retrieval.corpus: "bundled" → "lance:/data/store"`; the `retrieval` block compared key by key,
 * without {@link SPEED_ONLY_RETRIEVER_OPTIONS}).
 * @param prev the `config` of the folder's previous spec.json (any shape; unknown fields ignored).
 */
export function changedSettings(prev: Record<string, unknown>, next: ExperimentConfig): string[] {
  const out: string[] = [];
  for (const field of NON_KEY_SETTINGS) {
    const a = prev[field];
    const b = (next as unknown as Record<string, unknown>)[field];
    if (field === "retrieval" && a && b && typeof a === "object" && typeof b === "object") {
      const ra = comparableRetrieval(a as Record<string, unknown>);
      const rb = comparableRetrieval(b as Record<string, unknown>);
      for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) if (show(ra[k]) !== show(rb[k])) out.push(`retrieval.${k}: ${show(ra[k])} → ${show(rb[k])}`);
    } else if (show(a) !== show(b)) out.push(`${field}: ${show(a)} → ${show(b)}`);
  }
  return out;
}

/**
 * Refuses to run into `outputDir` when its results were computed with other non-key settings
 * ({@link NON_KEY_SETTINGS}) than `config`'s: the finished cells would be reused as if computed
 * with the new ones. Nothing to check when the folder has no spec.json or no results yet.
 * @param reuse reuse them anyway (`run --reuse-changed-settings`): only `log` a warning.
 * @throws ConfigError naming the folder, each changed setting and the ways out.
 */
export function checkSettingsUnchanged(outputDir: string, config: ExperimentConfig, reuse: boolean, log: (line: string) => void): void {
  const specPath = join(outputDir, "spec.json");
  const results = join(outputDir, "results.jsonl");
  if (!existsSync(specPath) || !existsSync(results) || statSync(results).size === 0) return;
  let prev: Record<string, unknown>;
  try {
    prev = ((JSON.parse(readFileSync(specPath, "utf8")) as { config?: Record<string, unknown> }).config ?? {}) as Record<string, unknown>;
  } catch {
    return; // an unreadable spec.json is replaced by the run (runner.ts)
  }
  const changed = changedSettings(prev, config);
  if (changed.length === 0) return;
  const what = changed.join("; ");
  if (reuse) {
    log(`warning: ${outputDir}: finished cells computed with other settings are reused as they are (${what}); cell keys do not include retrieval, seed or promptDir`);
    return;
  }
  throw new ConfigError(
    `${outputDir} holds results computed with other settings that are not part of the cell keys: ${what}. Its finished cells would be reused as if computed with the new settings. Write to another output folder (output: …), or pass --reuse-changed-settings to reuse them anyway`,
    null,
    changed.map((c) => ({ path: c.split(":")[0], message: c })),
  );
}
