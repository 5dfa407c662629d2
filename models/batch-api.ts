/**
 * A client of the OpenAI Batch API (Files + Batches endpoints), which OpenAI and compatible servers
 * serve: upload a JSONL of requests (`purpose: "batch"`), create a batch over it, poll the batch,
 * download its output and error files, cancel it.
 *
 * Request line: `{custom_id, method: "POST", url: "/v1/chat/completions", body}`; output and error
 * lines: `{id, custom_id, response: {status_code, request_id, body} | null, error: {code, message} | null}`,
 * in any order (map them by `custom_id`).
 *
 * @see https://platform.openai.com/docs/guides/batch
 * @see https://platform.openai.com/docs/api-reference/batch
 */
import { redactSecret } from "./endpoint-config.ts";

/** Batch states of the Batch API; `completed`, `failed`, `expired` and `cancelled` are final. */
export type BatchStatus = "validating" | "failed" | "in_progress" | "finalizing" | "completed" | "expired" | "cancelling" | "cancelled";

/** Final states: nothing more will change. */
export const FINAL_BATCH_STATES: ReadonlySet<BatchStatus> = new Set(["failed", "completed", "expired", "cancelled"]);

/** One request line of a batch input file. */
export interface BatchRequestLine {
  custom_id: string;
  method: "POST";
  /** Path under the API root, e.g. `/v1/chat/completions`. */
  url: string;
  body: unknown;
}

/** One line of a batch output or error file. */
export interface BatchResultLine {
  id?: string;
  custom_id: string;
  response: { status_code: number; request_id?: string; body: unknown } | null;
  error: { code?: string; message?: string } | null;
}

/** The fields of a batch object medsynth reads. */
export interface BatchObject {
  id: string;
  status: BatchStatus;
  input_file_id: string;
  output_file_id?: string | null;
  error_file_id?: string | null;
  request_counts?: { total: number; completed: number; failed: number };
  metadata?: Record<string, string> | null;
  errors?: { data?: { message?: string }[] } | null;
}

/** The operations of a Batch API (an HTTP client, or a fake in tests). */
export interface BatchApi {
  /** Upload a JSONL file for a batch; returns the file id. */
  uploadFile(jsonl: string, filename: string): Promise<string>;
  /** Create a batch over an uploaded file. */
  createBatch(inputFileId: string, endpoint: string, completionWindow: string, metadata: Record<string, string>): Promise<BatchObject>;
  getBatch(id: string): Promise<BatchObject>;
  /** Batches of this key, newest first (to find one created just before a crash). */
  listBatches(limit: number): Promise<BatchObject[]>;
  cancelBatch(id: string): Promise<BatchObject>;
  /** A file's text (output or error file). */
  fileContent(id: string): Promise<string>;
}

/** Parses a JSONL output/error file; lines that are not result lines are reported, not dropped silently. */
export function parseBatchResults(text: string, where: string): BatchResultLine[] {
  const out: BatchResultLine[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l) continue;
    let v: BatchResultLine;
    try {
      v = JSON.parse(l) as BatchResultLine;
    } catch {
      throw new Error(`${where}: line ${i + 1} is not JSON`);
    }
    if (typeof v?.custom_id !== "string") throw new Error(`${where}: line ${i + 1} has no custom_id`);
    out.push({ ...v, response: v.response ?? null, error: v.error ?? null });
  }
  return out;
}

/**
 * The Batch API of an OpenAI-compatible server at `baseURL` (ending in `/v1`).
 * @param apiKey sent as a Bearer token; never appears in errors.
 * @param fetchImpl fetch to use (tests).
 * @throws (from every method) Error naming the endpoint, the operation and the HTTP status.
 */
export function createHttpBatchApi(baseURL: string, apiKey: string, fetchImpl: typeof fetch = globalThis.fetch): BatchApi {
  const root = baseURL.replace(/\/+$/, "");
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const call = async (what: string, path: string, init: RequestInit = {}): Promise<Response> => {
    let res: Response;
    try {
      res = await fetchImpl(`${root}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
    } catch (e) {
      throw new Error(redactSecret(`batch API at ${root}: ${what}: ${(e as Error).message}`, apiKey));
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => "")).replace(/\s+/g, " ").slice(0, 500);
      throw new Error(redactSecret(`batch API at ${root}: ${what}: HTTP ${res.status}${body ? `: ${body}` : ""}`, apiKey));
    }
    return res;
  };
  const json = async <T>(what: string, path: string, init: RequestInit = {}): Promise<T> => (await (await call(what, path, init)).json()) as T;
  return {
    async uploadFile(jsonl, filename) {
      const form = new FormData();
      form.append("purpose", "batch");
      form.append("file", new Blob([jsonl], { type: "application/jsonl" }), filename);
      return (await json<{ id: string }>("upload of the batch input file", "/files", { method: "POST", body: form })).id;
    },
    createBatch(inputFileId, endpoint, completionWindow, metadata) {
      return json<BatchObject>("create batch", "/batches", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input_file_id: inputFileId, endpoint, completion_window: completionWindow, metadata }),
      });
    },
    getBatch(id) {
      return json<BatchObject>(`batch ${id}`, `/batches/${encodeURIComponent(id)}`);
    },
    async listBatches(limit) {
      return (await json<{ data: BatchObject[] }>("list batches", `/batches?limit=${limit}`)).data ?? [];
    },
    cancelBatch(id) {
      return json<BatchObject>(`cancel batch ${id}`, `/batches/${encodeURIComponent(id)}/cancel`, { method: "POST" });
    },
    async fileContent(id) {
      return (await call(`file ${id}`, `/files/${encodeURIComponent(id)}/content`)).text();
    },
  };
}
