// Worker-thread entry of the ingest pool: registers tsx (the sources are TypeScript) in this
// thread, then runs the worker (ingest-worker.ts).
import { register } from "tsx/esm/api";

register();
await import("./ingest-worker.ts");
