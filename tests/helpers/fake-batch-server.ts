/**
 * A local fake of the OpenAI Batch API on 127.0.0.1 (beside the scripted chat server): Files
 * (multipart upload, content download), Batches (create, get, list, cancel) and online chat
 * completions, all answered by one scripted responder, so a batch run and an online run can be
 * compared request by request. Faults: output lines in shuffled order, failed lines (HTTP errors in
 * the error file), batches that expire part-way, cancellation, and batches that stay in progress
 * for a number of polls (to kill a client mid-poll).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import { chatBody, type ScriptedReply } from "./scripted-openai-server.ts";

/** Options of the fake. */
export interface FakeBatchOptions {
  /** The answer to a chat request body (online or a batch line). */
  responder: (body: any) => ScriptedReply;
  /** GETs of a batch before it completes (default 1). */
  pollsToComplete?: number;
  /** HTTP status of a line that fails (error file), or null: by custom_id, how many times that id was submitted, and the request body. */
  failLine?: (customId: string, submission: number, body: any) => number | null;
  /** A batch (by its 1-based number) expires after answering this many lines, or null. */
  expireAfter?: (batchNo: number) => number | null;
  /** Output lines in a shuffled order (default true). */
  shuffle?: boolean;
}

interface FakeBatch {
  id: string;
  no: number;
  status: string;
  input_file_id: string;
  output_file_id: string | null;
  error_file_id: string | null;
  metadata: Record<string, string>;
  polls: number;
  lines: { custom_id: string; body: any }[];
  request_counts: { total: number; completed: number; failed: number };
}

/** The running fake. */
export interface FakeBatchServer {
  baseURL: string;
  /** Bodies of online chat requests, in arrival order. */
  onlineBodies: any[];
  /** Every batch line submitted (batch id, custom_id, body). */
  batchLines: { batchId: string; customId: string; body: any }[];
  /** Batches created, in order. */
  batches: FakeBatch[];
  /** How often each custom_id was submitted in a batch. */
  submissions(): Map<string, number>;
  close(): Promise<void>;
}

/** sha256 of a request body's canonical JSON (key order as sent). */
export function bodyHash(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

/** Start the fake. */
export async function startFakeBatchServer(opts: FakeBatchOptions): Promise<FakeBatchServer> {
  const files = new Map<string, string>();
  const batches: FakeBatch[] = [];
  const onlineBodies: any[] = [];
  const batchLines: FakeBatchServer["batchLines"] = [];
  const submitted = new Map<string, number>();
  let fileNo = 0;
  const shuffle = <T>(xs: T[], seed: number): T[] => {
    const a = [...xs];
    let s = seed + 1;
    for (let i = a.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) % 2147483648;
      const j = s % (i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  };
  const complete = (b: FakeBatch) => {
    const expireAt = opts.expireAfter?.(b.no) ?? null;
    const out: string[] = [];
    const err: string[] = [];
    b.lines.forEach((l, i) => {
      if (expireAt !== null && i >= expireAt) return;
      const failStatus = opts.failLine?.(l.custom_id, submitted.get(l.custom_id) ?? 1, l.body) ?? null;
      if (failStatus !== null) {
        b.request_counts.failed++;
        err.push(
          JSON.stringify({
            id: `req_${b.id}_${i}`,
            custom_id: l.custom_id,
            response: { status_code: failStatus, request_id: `r${i}`, body: { error: { message: `fake line error ${failStatus}`, type: "server_error" } } },
            error: null,
          }),
        );
        return;
      }
      b.request_counts.completed++;
      out.push(
        JSON.stringify({ id: `req_${b.id}_${i}`, custom_id: l.custom_id, response: { status_code: 200, request_id: `r${i}`, body: chatBody({ body: l.body }, opts.responder(l.body)) }, error: null }),
      );
    });
    const put = (lines: string[]) => {
      if (!lines.length) return null;
      const id = `file-out-${++fileNo}`;
      files.set(id, (opts.shuffle === false ? lines : shuffle(lines, b.no)).join("\n") + "\n");
      return id;
    };
    b.output_file_id = put(out);
    b.error_file_id = put(err);
    b.status = expireAt !== null && expireAt < b.lines.length ? "expired" : "completed";
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/^\/v1/, "");
    const send = (status: number, body: unknown, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const view = (b: FakeBatch) => ({
      id: b.id,
      object: "batch",
      endpoint: "/v1/chat/completions",
      status: b.status,
      input_file_id: b.input_file_id,
      output_file_id: b.output_file_id,
      error_file_id: b.error_file_id,
      metadata: b.metadata,
      request_counts: b.request_counts,
      completion_window: "24h",
    });
    if (req.method === "POST" && path === "/chat/completions") {
      const body = JSON.parse(raw.toString("utf8"));
      onlineBodies.push(body);
      return send(200, chatBody({ body }, opts.responder(body)));
    }
    if (req.method === "POST" && path === "/files") {
      const form = await new Request("http://127.0.0.1/", { method: "POST", headers: req.headers as Record<string, string>, body: raw }).formData();
      const file = form.get("file");
      if (form.get("purpose") !== "batch" || !(file instanceof Blob)) return send(400, { error: { message: "purpose=batch and a file are required" } });
      const id = `file-in-${++fileNo}`;
      files.set(id, await file.text());
      return send(200, { id, object: "file", purpose: "batch" });
    }
    if (req.method === "POST" && path === "/batches") {
      const body = JSON.parse(raw.toString("utf8"));
      const text = files.get(body.input_file_id);
      if (text === undefined) return send(404, { error: { message: `no file ${body.input_file_id}` } });
      const lines = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const b: FakeBatch = {
        id: `batch_${batches.length + 1}`,
        no: batches.length + 1,
        status: "validating",
        input_file_id: body.input_file_id,
        output_file_id: null,
        error_file_id: null,
        metadata: body.metadata ?? {},
        polls: 0,
        lines: lines.map((l: any) => ({ custom_id: l.custom_id, body: l.body })),
        request_counts: { total: lines.length, completed: 0, failed: 0 },
      };
      for (const l of b.lines) {
        submitted.set(l.custom_id, (submitted.get(l.custom_id) ?? 0) + 1);
        batchLines.push({ batchId: b.id, customId: l.custom_id, body: l.body });
      }
      batches.push(b);
      return send(200, view(b));
    }
    if (req.method === "GET" && path === "/batches")
      return send(200, {
        object: "list",
        data: [...batches]
          .reverse()
          .slice(0, Number(url.searchParams.get("limit") ?? 20))
          .map(view),
      });
    const m = /^\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (m) {
      const b = batches.find((x) => x.id === m[1]);
      if (!b) return send(404, { error: { message: `no batch ${m[1]}` } });
      if (m[2] && req.method === "POST") {
        if (!["completed", "failed", "expired"].includes(b.status)) b.status = "cancelled";
        return send(200, view(b));
      }
      if (b.status === "validating" || b.status === "in_progress") {
        b.polls++;
        b.status = "in_progress";
        if (b.polls >= (opts.pollsToComplete ?? 1)) complete(b);
      }
      return send(200, view(b));
    }
    const f = /^\/files\/([^/]+)\/content$/.exec(path);
    if (f && req.method === "GET") {
      const text = files.get(f[1]);
      return text === undefined ? send(404, { error: { message: `no file ${f[1]}` } }) : send(200, text, "application/jsonl");
    }
    send(404, { error: { message: `fake batch server: no route ${req.method} ${path}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    onlineBodies,
    batchLines,
    batches,
    submissions: () => new Map(submitted),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
