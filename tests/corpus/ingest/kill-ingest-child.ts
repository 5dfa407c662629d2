/** Child process of the kill -9 ingest test: ingests argv[2] into store argv[3], one worker, tiny batches, printing each commit. */
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";

await ingestToStore([process.argv[2]], {
  store: { uri: process.argv[3] },
  clean: {},
  jobs: 1,
  batchRows: 5,
  onBatch: (b) => process.stdout.write(`batch ${b.fileIndex} ${b.rows}\n`),
  onFile: (r) => process.stdout.write(`file ${r.file} ${r.status}\n`),
});
process.stdout.write("finished\n");
