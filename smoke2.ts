import { ingestToStore } from "./corpus/ingest/run-ingest.ts";
import { rmSync } from "node:fs";
rmSync("/tmp/hi/s3", { recursive: true, force: true });
const t0 = Date.now();
const T = () => ((Date.now() - t0) / 1000).toFixed(1);
const rep = await ingestToStore(["/tmp/hi/in/a1.xml.gz", "/tmp/hi/in/a3.xml"], { store: { uri: "/tmp/hi/s3" }, clean: {}, jobs: 2, onBatch: (b) => console.log(T(), "batch", b), onFile: (r) => console.log(T(), "file", r.file), log: console.log });
console.log(T(), "end", rep.meta.counts?.kept);
