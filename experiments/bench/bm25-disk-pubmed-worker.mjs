// Worker-thread entry of experiments/bench/bm25-disk-pubmed.ts: registers tsx in this thread, then
// loads the bench, which sees it is not the main thread and generates the files it is sent.
import { register } from "tsx/esm/api";

register();
await import("./bm25-disk-pubmed.ts");
