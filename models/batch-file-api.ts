/**
 * A {@link BatchApi} over files in a run folder, for servers that run batch files offline (vLLM's
 * `vllm run-batch -i requests.jsonl -o results.jsonl` reads and writes the OpenAI batch format):
 * "uploading" writes the request file to `<run>/batch-files/`, a "batch" is that file waiting for
 * its results, and it completes when `medsynth batch import` has put the results beside it
 * (`<batch id>.output.jsonl`).
 *
 * @see https://docs.vllm.ai/en/latest/ (run-batch: OpenAI batch file format)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BatchApi, BatchObject } from "./batch-api.ts";

/** Folder of a run's batch files. */
export function batchFilesDir(runDir: string): string {
  return join(runDir, "batch-files");
}

/** The request file of a file batch: `<run>/batch-files/<batch id>.jsonl`. */
export function batchRequestFile(runDir: string, batchId: string): string {
  return join(batchFilesDir(runDir), `${batchId}.jsonl`);
}

/** Where `batch import` puts a file batch's results. */
export function batchOutputFile(runDir: string, batchId: string): string {
  return join(batchFilesDir(runDir), `${batchId}.output.jsonl`);
}

/**
 * The file Batch API of a run folder.
 * @param onWaiting called when a batch is polled and has no results yet (export mode stops the run then).
 */
export function createFileBatchApi(runDir: string, onWaiting: (batchId: string, requestFile: string) => void = () => {}): BatchApi {
  const dir = batchFilesDir(runDir);
  const view = (id: string): BatchObject => {
    const out = batchOutputFile(runDir, id);
    const done = existsSync(out);
    return { id, status: done ? "completed" : "in_progress", input_file_id: `${id}.jsonl`, output_file_id: done ? `${id}.output.jsonl` : null, error_file_id: null, metadata: readMeta(id) };
  };
  const readMeta = (id: string): Record<string, string> => {
    const p = join(dir, `${id}.meta.json`);
    return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as Record<string, string>) : {};
  };
  return {
    async uploadFile(jsonl, filename) {
      mkdirSync(dir, { recursive: true });
      const id = filename.replace(/\.jsonl$/, "");
      writeFileSync(join(dir, `${id}.jsonl`), jsonl);
      return `${id}.jsonl`;
    },
    async createBatch(inputFileId, _endpoint, _window, metadata) {
      const id = inputFileId.replace(/\.jsonl$/, "");
      writeFileSync(join(dir, `${id}.meta.json`), JSON.stringify(metadata));
      return view(id);
    },
    async getBatch(id) {
      const b = view(id);
      if (b.status !== "completed") onWaiting(id, batchRequestFile(runDir, id));
      return b;
    },
    async listBatches() {
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .filter((f) => f.endsWith(".meta.json"))
        .map((f) => view(f.slice(0, -".meta.json".length)));
    },
    async cancelBatch(id) {
      return view(id);
    },
    async fileContent(id) {
      return readFileSync(join(dir, id), "utf8");
    },
  };
}
