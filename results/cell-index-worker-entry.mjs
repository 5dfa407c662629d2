// Worker-thread entry of the cell index build when medsynth runs from its TypeScript sources:
// registers tsx (a devDependency) in this thread, then runs the worker (cell-index-worker.ts). The
// compiled package (dist/) starts cell-index-worker.js directly and never loads this file. When
// the worker cannot load, every block it is sent is answered with the error (the building thread
// waits on those answers).
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

try {
  register();
  await import("./cell-index-worker.ts");
} catch (err) {
  const { port, signal } = workerData;
  port.on("message", (m) => {
    port.postMessage({ block: m.block, rows: [], lines: 0, malformed: [], end: null, truncatedTail: false, error: `index worker: ${err instanceof Error ? err.message : String(err)}` });
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
}
