// Worker-thread entry of the bounded report (bounded.ts) when medsynth runs from its TypeScript
// sources: registers tsx (a devDependency) in this thread, then runs the worker
// (report-worker.ts). The compiled package (dist/) starts report-worker.js directly and never
// loads this file.
import { register } from "tsx/esm/api";

register();
await import("./report-worker.ts");
