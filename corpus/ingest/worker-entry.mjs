// Worker-thread entry of the ingest pool when medsynth runs from its TypeScript sources: registers
// tsx (a devDependency) in this thread, then runs the worker (ingest-worker.ts). The compiled
// package (dist/) spawns ingest-worker.js directly and never loads this file.
import { register } from "tsx/esm/api";

register();
await import("./ingest-worker.ts");
