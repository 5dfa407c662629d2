// Worker-thread entry of the parallel on-disk BM25 search when medsynth runs from its TypeScript
// sources: registers tsx (a devDependency) in this thread, then runs the worker
// (disk-parallel-worker.ts). The compiled package (dist/) spawns disk-parallel-worker.js directly
// and never loads this file.
import { register } from "tsx/esm/api";

register();
await import("./disk-parallel-worker.ts");
