// Worker-thread entry of the synthetic PubMed generator (experiments/bench/synthetic-pubmed.ts):
// registers tsx in this thread, then loads the generator, which sees its workerData and writes the
// files it is sent.
import { register } from "tsx/esm/api";

register();
await import("./synthetic-pubmed.ts");
