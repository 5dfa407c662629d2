/**
 * Opens SQLite files through better-sqlite3, loaded on first use: it is an optional peer dependency
 * of medsynth (the viewer's index, compare caches and rating studies need it; the library's other
 * entry points must load without it).
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

let ctor: typeof BetterSqlite3 | undefined;

/**
 * Open (or create) a SQLite database.
 * @param path file path, or `:memory:`.
 * @param options better-sqlite3's options (`readonly`, `fileMustExist` …).
 * @throws Error saying how to install better-sqlite3 when it is missing; better-sqlite3's error
 *   (naming the file) when the file cannot be opened.
 */
export function openSqlite(path: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  if (!ctor) {
    try {
      ctor = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    } catch (err) {
      throw new Error(`the viewer's index needs better-sqlite3 (an optional peer dependency of medsynth: npm install better-sqlite3@12.9.0): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return new ctor(path, options);
}
