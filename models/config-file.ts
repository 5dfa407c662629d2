/**
 * Reading a YAML (`.yaml`, `.yml`) or JSON (`.json`) config file into a plain value, with errors
 * that name the file. Shared by experiment configs, judge panels and rubric files.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";

/**
 * The cause of an OS error in words, with its code (EISDIR, ENOENT, EACCES, EROFS …).
 */
export function osErrorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const causes: Record<string, string> = {
    EISDIR: "it is a folder, not a file",
    ENOENT: "no such file or folder",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "the file system is read-only",
    ENOSPC: "no space left on the device",
    ENOTDIR: "a part of the path is not a folder",
    EMFILE: "too many open files",
  };
  if (e && typeof e.code === "string" && causes[e.code]) return `${e.code}: ${causes[e.code]}`;
  return e instanceof Error ? e.message : String(err);
}

/**
 * Read and parse a config file (not validated).
 * @param path file path; `.json` is parsed as JSON, anything else as YAML.
 * @param what label put before the path in error messages (e.g. "panel"), or "" for none.
 * @throws Error `"<what> <path>: cannot read file (…)"` (with the OS cause, e.g. EISDIR),
 *   `"<what> <path>: not valid YAML (…)"` (YAML errors carry line and column), or
 *   `"<what> <path>: the file is empty"` for an empty file or one holding only comments.
 */
export function readConfigValue(path: string, what = ""): unknown {
  const at = what ? `${what} ${path}` : path;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${at}: cannot read file (${osErrorText(err)})`);
  }
  const json = path.endsWith(".json");
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`${at}: not valid ${json ? "JSON" : "YAML"} (${(err as Error).message})`);
  }
  // An empty file (or one holding only comments) is a mistake, never "all defaults".
  if (value === null || value === undefined || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0)) {
    throw new Error(`${at}: the file is empty (no settings); see experiments/configs/ for examples`);
  }
  return value;
}
