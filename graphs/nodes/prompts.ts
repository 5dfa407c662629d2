/**
 * The workflows' prompt templates: bundled files in graphs/prompts/*.md, each replaceable by a
 * file of the same name in the user's `promptDir` (WorkflowDeps.promptDir). Parsing, rendering and
 * the cache-key metadata come from the model layer (models/prompt-template.ts): YAML front matter
 * `id`, `version`, `description`, `variables`, messages split by `## system` / `## user`, `{{name}}`
 * placeholders; id and version enter every call's cache key.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallMeta, ChatMessage } from "../../models/types.ts";
import { promptMeta as templateMeta, renderPrompt, resolvePromptTemplate, type PromptTemplate, type PromptVars } from "../../models/prompt-template.ts";

/** Folder of the bundled templates (graphs/prompts). */
export const BUNDLED_PROMPT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "prompts");

/** A loaded template (the model layer's {@link PromptTemplate}). */
export type WorkflowPrompt = PromptTemplate;

const loaded = new Map<string, WorkflowPrompt>();

/**
 * Load a template by file name, preferring `promptDir/<name>.md` over the bundled one. Loaded
 * templates are memoised per (name, promptDir) for the process.
 * @param name file name without `.md`, e.g. "pzs-conclusion"
 * @param promptDir optional folder of user overrides
 * @throws Error listing the paths searched when neither exists, or naming the file when invalid
 */
export function loadWorkflowPrompt(name: string, promptDir?: string): WorkflowPrompt {
  const key = `${promptDir ?? ""}\u0000${name}`;
  const hit = loaded.get(key);
  if (hit) return hit;
  const t = resolvePromptTemplate(name, { bundledDir: BUNDLED_PROMPT_DIR, ...(promptDir ? { overrideDir: promptDir } : {}) });
  loaded.set(key, t);
  return t;
}

/**
 * Fill a template's placeholders.
 * @throws Error naming the template and variable when one is missing or undeclared
 */
export function renderWorkflowPrompt(prompt: WorkflowPrompt, vars: PromptVars): ChatMessage[] {
  return renderPrompt(prompt, vars);
}

/** The cache-key part of a call made with this template. */
export function promptMeta(prompt: WorkflowPrompt, repeat: number): CallMeta {
  return templateMeta(prompt, repeat);
}
