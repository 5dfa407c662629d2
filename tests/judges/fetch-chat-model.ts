/**
 * Test-only ChatModel that talks to the scripted OpenAI-compatible server with plain `fetch`.
 * Its `structured` call parses the content with `JSON.parse` (no fence stripping) and validates it
 * with zod, re-asking up to `validationAttempts` times, like a strict structured-output layer would.
 * It lets the judge tests exercise real HTTP answers (valid, fenced, garbage, timeouts) without
 * depending on the model layer's implementation.
 */
import type { z } from "zod";
import type { CallInfo, ChatMessage, ChatModel, ChatResult, StructuredResult } from "../../models/types.ts";

export function fetchChatModel(baseURL: string, model: string, validationAttempts = 1): ChatModel {
  /** The per-attempt time limit (CallOptions.timeoutMs) joined with the caller's signal, as the real model layer does. */
  const withTimeout = (opts: { signal?: AbortSignal; timeoutMs?: number }): AbortSignal | undefined => {
    const signals = [...(opts.timeoutMs ? [AbortSignal.timeout(opts.timeoutMs)] : []), ...(opts.signal ? [opts.signal] : [])];
    return signals.length ? AbortSignal.any(signals) : undefined;
  };
  const call = async (messages: ChatMessage[], signal?: AbortSignal): Promise<{ text: string | null; error?: string; info: CallInfo }> => {
    const t0 = Date.now();
    const info: CallInfo = { modelId: `openai:${model}`, cached: false, latencyMs: 0, usage: null, attempts: 1 };
    try {
      const res = await fetch(`${baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, messages, temperature: 0 }), signal });
      const body: any = await res.json();
      info.latencyMs = Date.now() - t0;
      if (!res.ok) return { text: null, error: `HTTP ${res.status}`, info };
      info.usage = { inputTokens: body.usage.prompt_tokens, outputTokens: body.usage.completion_tokens };
      return { text: String(body.choices[0].message.content ?? ""), info };
    } catch (err) {
      info.latencyMs = Date.now() - t0;
      return { text: null, error: `${(err as Error).name}: ${(err as Error).message}`, info };
    }
  };
  return {
    id: `openai:${model}`,
    kind: "llm",
    async chat(messages, opts): Promise<ChatResult> {
      const r = await call(messages, withTimeout(opts));
      return r.text === null ? { ok: false, error: r.error ?? "failed", call: r.info } : { ok: true, text: r.text, call: r.info };
    },
    async structured<S extends z.ZodType>(messages: ChatMessage[], schema: S, opts: { signal?: AbortSignal; timeoutMs?: number }): Promise<StructuredResult<z.infer<S>>> {
      let raw: string | null = null;
      let error = "no attempt";
      let info: CallInfo = { modelId: `openai:${model}`, cached: false, latencyMs: 0, usage: null, attempts: 0 };
      for (let i = 1; i <= validationAttempts; i++) {
        const r = await call(messages, withTimeout(opts));
        info = r.info;
        if (r.text === null) return { ok: false, error: r.error ?? "failed", raw, call: info, validationAttempts: i };
        raw = r.text;
        let parsed: unknown;
        try {
          parsed = JSON.parse(r.text);
        } catch (e) {
          error = `not JSON: ${(e as Error).message}`;
          continue;
        }
        const v = schema.safeParse(parsed);
        if (v.success) return { ok: true, value: v.data, text: r.text, call: info, validationAttempts: i };
        error = `schema: ${v.error.issues.map((x) => x.message).join("; ")}`;
      }
      return { ok: false, error, raw, call: info, validationAttempts };
    },
  };
}
