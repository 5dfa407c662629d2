/**
 * Prompt templates as files: Markdown with YAML front matter (`id`, `version`, `description`,
 * `variables`) and a body split into chat messages by lines `## system`, `## user`,
 * `## assistant`. Placeholders are `{{name}}`. A template's id and version become the
 * {@link CallMeta} of the calls it produces, so editing a template (or bumping its version)
 * misses the cache. Users replace a bundled template by putting a file with the same name in
 * their override folder.
 *
 * ```md
 * ---
 * id: golden-rag.synthesize
 * version: "1"
 * description: Conclusion from golden abstracts
 * variables: [title, evidence]
 * ---
 * ## system
 * You write the conclusion of a meta-analysis.
 * ## user
 * Title: {{title}}
 * {{evidence}}
 * ```
 */
import { readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { CallMeta, ChatMessage } from "./types.ts";

/** Front matter of a template file (`.strict()`). */
export const PromptFrontMatterSchema = z
  .object({
    id: z.string().min(1),
    version: z.union([z.string().min(1), z.number()]).transform((v) => String(v)),
    description: z.string().default(""),
    variables: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "variable names are letters, digits and _")).default([]),
  })
  .strict();

/** A loaded template. */
export interface PromptTemplate {
  id: string;
  version: string;
  description: string;
  /** Declared variables (each must be supplied at render). */
  variables: string[];
  /** Message skeletons with `{{placeholders}}`. */
  messages: ChatMessage[];
  /** File it came from (or `<inline>`), used in error messages. */
  source: string;
}

/** Values of template variables. */
export type PromptVars = Record<string, string | number | boolean>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const HEADER = /^##\s+(system|user|assistant)\s*$/i;

function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/**
 * Parse template text.
 * @param text file content.
 * @param source file path (for messages).
 * @throws Error naming `source` for missing/invalid front matter, text before the first `## role`
 *   header, an empty message, a placeholder that is not declared, or a declared variable never used.
 */
export function parsePromptTemplate(text: string, source = "<inline>"): PromptTemplate {
  const norm = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(norm);
  if (!fm) throw new Error(`Prompt template ${source}: missing YAML front matter (--- id, version, variables --- at the top)`);
  let meta: unknown;
  try {
    meta = parseYaml(fm[1]);
  } catch (e) {
    throw new Error(`Prompt template ${source}: front matter is not valid YAML: ${(e as Error).message}`);
  }
  const r = PromptFrontMatterSchema.safeParse(meta);
  if (!r.success) throw new Error(`Prompt template ${source}: invalid front matter: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  const body = norm.slice(fm[0].length);
  const messages: ChatMessage[] = [];
  let current: { role: ChatMessage["role"]; lines: string[] } | null = null;
  body.split("\n").forEach((line, i) => {
    const h = HEADER.exec(line);
    if (h) {
      if (current) messages.push({ role: current.role, content: current.lines.join("\n").trim() });
      current = { role: h[1].toLowerCase() as ChatMessage["role"], lines: [] };
    } else if (current) current.lines.push(line);
    else if (line.trim() !== "") throw new Error(`Prompt template ${source}: text before the first "## system|user|assistant" header (body line ${i + 1})`);
  });
  if (current) messages.push({ role: (current as { role: ChatMessage["role"] }).role, content: (current as { lines: string[] }).lines.join("\n").trim() });
  if (messages.length === 0) throw new Error(`Prompt template ${source}: no messages (add "## system" / "## user" sections)`);
  messages.forEach((m, i) => {
    if (!m.content) throw new Error(`Prompt template ${source}: message ${i + 1} (## ${m.role}) is empty`);
  });
  const declared = new Set(r.data.variables);
  const used = new Set(messages.flatMap((m) => placeholdersOf(m.content)));
  for (const u of used) if (!declared.has(u)) throw new Error(`Prompt template ${source}: placeholder {{${u}}} is not declared in "variables"`);
  for (const d of declared) if (!used.has(d)) throw new Error(`Prompt template ${source}: variable "${d}" is declared but never used`);
  return { id: r.data.id, version: r.data.version, description: r.data.description, variables: r.data.variables, messages, source };
}

/**
 * Load a template file.
 * @throws Error naming the path when it cannot be read or parsed.
 */
export function loadPromptTemplate(path: string): PromptTemplate {
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (e) {
    throw new Error(`Prompt template ${abs}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parsePromptTemplate(text, abs);
}

/** Where {@link resolvePromptTemplate} looks. */
export interface PromptDirs {
  /** Templates shipped with medsynth (e.g. graphs/prompts). */
  bundledDir: string;
  /** User folder whose files replace bundled ones of the same name (from the experiment config). */
  overrideDir?: string;
}

/**
 * Find and load template `name` (`<name>.md`; `name` may already end in `.md`): the override
 * folder wins over the bundled one.
 * @throws Error listing the paths searched when neither has it.
 */
export function resolvePromptTemplate(name: string, dirs: PromptDirs): PromptTemplate {
  const file = name.endsWith(".md") ? name : `${name}.md`;
  const candidates = [dirs.overrideDir, dirs.bundledDir].filter((d): d is string => !!d).map((d) => join(resolve(d), file));
  for (const c of candidates) if (existsSync(c)) return loadPromptTemplate(c);
  throw new Error(`Prompt template "${name}" not found; looked in: ${candidates.join(", ")}`);
}

/**
 * Fill a template's placeholders (single pass: values are inserted literally, never re-expanded).
 * A line that is only a label and a placeholder (`Title: {{title}}`) is left out when the value
 * is empty or blank (an item without a title gets no `Title:` line).
 * @param vars a value for every declared variable.
 * @param opts.allowExtra accept supplied variables the template does not declare (default false: they are an error, catching typos).
 * @returns the chat messages.
 * @throws Error naming the template file and the variable when one is missing, null/undefined, of an unsupported type, or undeclared.
 */
export function renderPrompt(template: PromptTemplate, vars: PromptVars, opts: { allowExtra?: boolean } = {}): ChatMessage[] {
  for (const v of template.variables) {
    if (!(v in vars) || vars[v] === undefined || vars[v] === null) throw new Error(`Prompt template ${template.source} (${template.id}): variable "${v}" is not supplied`);
    const t = typeof vars[v];
    if (t !== "string" && t !== "number" && t !== "boolean") throw new Error(`Prompt template ${template.source} (${template.id}): variable "${v}" must be a string, number or boolean (got ${t})`);
  }
  if (!opts.allowExtra) {
    const declared = new Set(template.variables);
    for (const k of Object.keys(vars)) if (!declared.has(k)) throw new Error(`Prompt template ${template.source} (${template.id}): variable "${k}" is supplied but not declared`);
  }
  return template.messages.map((m) => ({
    role: m.role,
    content: dropEmptyLabelLines(m.content, vars).replace(PLACEHOLDER, (_all, name: string) => {
      if (!template.variables.includes(name)) throw new Error(`Prompt template ${template.source} (${template.id}): placeholder {{${name}}} is not declared`);
      return String(vars[name]);
    }),
  }));
}

/** A template line that is only a short label and one placeholder: `Title: {{title}}`. */
const LABEL_LINE = /^[^{}\n]{1,40}:[ \t]*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}[ \t]*$/;

/**
 * Leave out the label lines (`Title: {{title}}`) whose value is empty or blank, with the blank
 * line after them: an item without a title gets no `Title:` line, never a placeholder text.
 */
function dropEmptyLabelLines(content: string, vars: PromptVars): string {
  const lines = content.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = LABEL_LINE.exec(lines[i]);
    if (m && m[1] in vars && String(vars[m[1]]).trim() === "") {
      if (lines[i + 1] !== undefined && lines[i + 1].trim() === "" && (out.length === 0 || out[out.length - 1].trim() === "")) i++;
      continue;
    }
    out.push(lines[i]);
  }
  return out.join("\n");
}

/**
 * The {@link CallMeta} of calls made with a template.
 * @param repeat 0-based repeat index (separate cache entries per repeat).
 */
export function promptMeta(template: Pick<PromptTemplate, "id" | "version">, repeat = 0): CallMeta {
  return { promptId: template.id, promptVersion: template.version, repeat };
}
