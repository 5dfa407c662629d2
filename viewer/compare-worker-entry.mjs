// Worker-thread entry of compare mode when medsynth runs from its TypeScript sources: registers
// tsx (a devDependency) in this thread, then runs the worker (compare-worker.ts). The compiled
// package (dist/) starts compare-worker.js directly and never loads this file.
import { register } from "tsx/esm/api";

register();
await import("./compare-worker.ts");
