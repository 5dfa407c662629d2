/** Test helper: the PubMed XML files (`.xml`, `.xml.gz`) under a folder, searched recursively, sorted by path. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Every `.xml` / `.xml.gz` file under `dir` (recursive), as absolute-or-joined paths sorted by
 * their path relative to `dir`.
 * @param dir - the folder to search.
 */
export function xmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /\.xml(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}
