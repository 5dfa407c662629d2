/**
 * Reading a YAML (`.yaml`, `.yml`) or JSON (`.json`) config file into a plain value, with errors
 * that name the file. Shared by experiment configs, judge panels and rubric files.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";

/**
 * Read and parse a config file (not validated).
 * @param path file path; `.json` is parsed as JSON, anything else as YAML.
 * @param what label put before the path in error messages (e.g. "panel"), or "" for none.
 * @throws Error `"<what> <path>: cannot read file (…)"` or `"<what> <path>: not valid YAML (…)"`
 *   (YAML errors carry line and column).
 */
export function readConfigValue(path: string, what = ""): unknown {
  const at = what ? `${what} ${path}` : path;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${at}: cannot read file (${(err as Error).message})`);
  }
  const json = path.endsWith(".json");
  try {
    return json ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`${at}: not valid ${json ? "JSON" : "YAML"} (${(err as Error).message})`);
  }
}
