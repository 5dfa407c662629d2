#!/usr/bin/env node
// Entry point of the `medsynth` CLI. Runs the compiled JavaScript in dist/ (what the npm package
// ships; `npm run build` makes it, and `npm ci` in a checkout runs the build through `prepare`).
// In a development checkout without dist/ — or with MEDSYNTH_FROM_SOURCE=1 — it runs the
// TypeScript sources through tsx, a devDependency that installed packages do not have.
import { existsSync } from "node:fs";

const dist = new URL("../dist/experiments/cli/main.js", import.meta.url);
if (existsSync(dist) && !process.env.MEDSYNTH_FROM_SOURCE) {
  const { main } = await import(dist.href);
  await main(process.argv);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    console.error("medsynth: the compiled CLI (dist/) is missing; run `npm run build` in the medsynth folder");
    process.exit(1);
  }
  register();
  const { main } = await import("../experiments/cli/main.ts");
  await main(process.argv);
}
