/**
 * A local OpenAI-compatible HTTP server on 127.0.0.1 that answers with scripted replies.
 * Tests that need an LLM or an embedding endpoint use it; nothing touches the network.
 *
 * Supports POST /v1/chat/completions (text or tool-call answers, any status, Retry-After,
 * delays for timeouts) and POST /v1/embeddings (deterministic hashed vectors unless scripted).
 * Every request is recorded (path, parsed JSON body, headers) for assertions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";

/** A request the server received. */
export interface ScriptedRequest {
  /** The reply the server sent (set once it is decided). */
  reply?: ScriptedReply;
  path: string;
  body: any;
  headers: IncomingMessage["headers"];
}

/** What the server answers to one request. */
export interface ScriptedReply {
  /** HTTP status (default 200). */
  status?: number;
  headers?: Record<string, string>;
  /** Assistant message content (chat completions). */
  content?: string;
  /** Answer with a tool call instead of content (function-calling structured output). */
  toolCall?: { name: string; arguments: string };
  /** Raw JSON body to send as is (overrides content/toolCall). */
  body?: unknown;
  /** Wait this many ms before answering (to provoke client timeouts). */
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Send no `usage` at all (some servers do not). */
  omitUsage?: boolean;
  /** `finish_reason` of the choice (default "stop", or "tool_calls" for a tool call); "length" = cut off at max_tokens. */
  finishReason?: string;
  /** Embedding vectors to return (embeddings endpoint). */
  embeddings?: number[][];
}

/** Decides the reply for the n-th request (0-based over all requests). */
export type Responder = (req: ScriptedRequest, n: number) => ScriptedReply | Promise<ScriptedReply>;

/**
 * Tokens the server reported over its chat requests (the ground truth for usage accounting):
 * sum of the `usage` it sent, and how many replies carried none.
 */
export function reportedUsage(replies: ScriptedReply[]): { inputTokens: number; outputTokens: number; noUsage: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  let noUsage = 0;
  for (const r of replies) {
    if ((r.status ?? 200) >= 400 || r.body !== undefined) continue;
    if (r.omitUsage) noUsage++;
    else {
      inputTokens += r.usage?.prompt_tokens ?? 11;
      outputTokens += r.usage?.completion_tokens ?? 7;
    }
  }
  return { inputTokens, outputTokens, noUsage };
}

/** A running scripted server. `baseURL` ends in `/v1`. */
export interface ScriptedServer {
  baseURL: string;
  requests: ScriptedRequest[];
  /** Chat-completion requests only. */
  chatRequests(): ScriptedRequest[];
  close(): Promise<void>;
}

/** Deterministic unit vector of `dims` numbers derived from the text's SHA-256. */
export function hashedVector(text: string, dims = 8): number[] {
  const h = createHash("sha256").update(text).digest();
  const v = Array.from({ length: dims }, (_, i) => (h[i % h.length] - 127.5) / 127.5);
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

/** The chat-completion body the server sends for a reply (also used by the fake Batch API server). */
export function chatBody(req: Pick<ScriptedRequest, "body">, r: ScriptedReply) {
  const message: Record<string, unknown> = { role: "assistant", content: r.toolCall ? null : (r.content ?? "") };
  if (r.toolCall) message.tool_calls = [{ id: "call_0", type: "function", function: r.toolCall }];
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: 1_700_000_000,
    model: req.body?.model ?? "scripted",
    choices: [{ index: 0, message, finish_reason: r.finishReason ?? (r.toolCall ? "tool_calls" : "stop"), logprobs: null }],
    ...(r.omitUsage
      ? {}
      : {
          usage: { prompt_tokens: r.usage?.prompt_tokens ?? 11, completion_tokens: r.usage?.completion_tokens ?? 7, total_tokens: (r.usage?.prompt_tokens ?? 11) + (r.usage?.completion_tokens ?? 7) },
        }),
  };
}

/**
 * Start the server.
 * @param script a list of replies used in order (the last one repeats), or a {@link Responder}.
 * @returns the running server; call `close()` in `afterAll`.
 */
export async function startScriptedServer(script: ScriptedReply[] | Responder): Promise<ScriptedServer> {
  const requests: ScriptedRequest[] = [];
  const responder: Responder = Array.isArray(script) ? (_req, n) => script[Math.min(n, script.length - 1)] ?? { content: "" } : script;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const sreq: ScriptedRequest = { path: (req.url ?? "").split("?")[0], body, headers: req.headers };
    const n = requests.length;
    requests.push(sreq);
    let reply: ScriptedReply;
    if (sreq.path.endsWith("/embeddings") && Array.isArray(script)) {
      reply = {};
    } else {
      reply = await responder(sreq, n);
    }
    sreq.reply = reply;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    let out: unknown;
    if (reply.body !== undefined) out = reply.body;
    else if (sreq.path.endsWith("/embeddings")) {
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [body?.input ?? ""];
      const vecs = reply.embeddings ?? inputs.map((t) => hashedVector(String(t), body?.dimensions ?? 8));
      out = {
        object: "list",
        model: body?.model ?? "scripted",
        data: vecs.map((embedding, index) => ({ object: "embedding", index, embedding })),
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      };
    } else if (status >= 400) out = { error: { message: `scripted error ${status}`, type: "server_error", code: status } };
    else out = chatBody(sreq, reply);
    res.writeHead(status, { "content-type": "application/json", ...(reply.headers ?? {}) });
    res.end(JSON.stringify(out));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path.endsWith("/chat/completions")),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
