#!/usr/bin/env node
// Entry point of the `medsynth` CLI: registers tsx so the TypeScript sources run as they are.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../experiments/cli/main.ts");
await main(process.argv);
