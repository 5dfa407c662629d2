// Preload for `node --import <this file>`: records every module the process loads, for tests
// that assert a command does NOT load heavy dependencies (LanceDB, LangChain, transformers.js,
// Vega, Playwright, better-sqlite3). ESM: a resolve hook (in Node's hooks thread) appends each
// resolved URL to $MEDSYNTH_LOAD_LOG; CommonJS: at exit, every file in require.cache (which
// also holds CommonJS packages imported from ESM) is appended too. One line per module.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const log = process.env.MEDSYNTH_LOAD_LOG;
if (log) {
  register("./load-recorder-hooks.mjs", import.meta.url, { data: { log } });
  const require = createRequire(import.meta.url);
  process.on("exit", () => {
    const files = Object.keys(require.cache);
    if (files.length) appendFileSync(log, files.map((f) => `cjs ${f}`).join("\n") + "\n");
  });
}
