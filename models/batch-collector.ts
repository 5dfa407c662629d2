/**
 * Batch execution of a run's chat calls: every `openai:` chat request made while a run is in batch
 * mode is caught at the fetch level — the exact body the online call would send — and queued; after
 * a quiet moment (`idleMs`, when every running cell is waiting on its next call) the queue of each
 * endpoint and model goes out as one batch through the Batch API; each waiting call gets its own
 * result line back (mapped by `custom_id`, whatever the output file's order) as if the endpoint had
 * answered online, so parsing, validation, retries and the call cache are the online path's.
 * Multi-step workflows therefore advance one wave per step.
 *
 * `custom_id` is the call's cache key (a structured call's re-asks after a failed validation add
 * `~2`, `~3`…). Submissions go into the run folder's journal ({@link BatchJournal}) before they are
 * made: a re-run after `kill -9` re-attaches to batches in flight (or finished) and never resubmits
 * a submitted request. Lines that failed, expired or were cancelled are retried online or in a new
 * batch (`onFailedLine`), and counted.
 *
 * @see https://platform.openai.com/docs/guides/batch
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomUUID } from "node:crypto";
import { FINAL_BATCH_STATES, parseBatchResults, type BatchApi, type BatchObject, type BatchResultLine } from "./batch-api.ts";
import { BatchJournal } from "./batch-journal.ts";
import { BatchSettingsSchema, type BatchSettings } from "./batch-settings.ts";

/** Counters of a batch session (for progress, the summary and the report). */
export interface BatchStats {
  /** Batches submitted by this process. */
  batches: number;
  /** Request lines submitted by this process. */
  linesSubmitted: number;
  /** Lines whose result came back from a batch (any status). */
  linesDone: number;
  /** Calls answered from a batch submitted by an earlier process (re-attached after a crash). */
  reattached: number;
  /** Result lines that were HTTP errors (4xx/5xx); a 5xx/429 is retried by the call layer's policy. */
  failedLines: number;
  /** Requests a batch ended without answering (expired, failed or cancelled first), retried. */
  missingLines: number;
  /** Retries sent online. */
  retriedOnline: number;
  /** Retries sent in a new batch. */
  retriedInBatch: number;
}

/** Per call: the cache key, and the distinct request bodies seen under it (re-asks). */
interface CallContext {
  key: string;
  bodies: Map<string, number>;
}

/** The context a model sets around one logical call so the batch fetch can name its requests. */
export const batchCallContext = new AsyncLocalStorage<CallContext>();

/** Run `fn` as the logical call with cache key `key` (its requests' custom_ids derive from it). */
export function withBatchCall<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return batchCallContext.run({ key, bodies: new Map() }, fn);
}

/** A line's result: the result line, or null when the batch ended without one (expired, failed, cancelled). */
type LineOutcome = { line: BatchResultLine | null; batchId: string; batchStatus: string };

interface Waiter {
  customId: string;
  body: unknown;
  resolve: (o: LineOutcome) => void;
  reject: (e: unknown) => void;
}

/** A batch being followed until its final state. */
interface Tracker {
  batchId: string;
  api: BatchApi;
  model: string;
  waiters: Map<string, { resolve: (o: LineOutcome) => void; reject: (e: unknown) => void }[]>;
  /** Result by custom_id once final. */
  results?: Map<string, BatchResultLine>;
  status?: string;
  done: Promise<void>;
  /** Followed again by a new session (a batch submitted by an earlier process). */
  reattached: boolean;
  /** custom_ids whose result line was counted in the stats (once each, whenever its call asked). */
  counted: Set<string>;
}

/** One endpoint+model queue of requests waiting for the next wave. */
interface Queue {
  endpoint: string;
  api: BatchApi;
  model: string;
  waiting: Waiter[];
  timer?: NodeJS.Timeout;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * Collects the chat requests of a run into batches and answers them from the batch results.
 * One per run; give it to every model of the run ({@link ModelFactoryOptions.batch}).
 */
export class BatchCollector {
  readonly settings: BatchSettings;
  readonly stats: BatchStats = { batches: 0, linesSubmitted: 0, linesDone: 0, reattached: 0, failedLines: 0, missingLines: 0, retriedOnline: 0, retriedInBatch: 0 };
  private readonly journal: BatchJournal;
  private readonly queues = new Map<string, Queue>();
  private readonly trackers = new Map<string, Tracker>();
  /** custom_id → batch id of a journalled submission (this process's or an earlier one's). */
  private readonly submittedIn = new Map<string, string>();
  /** custom_id → batches whose answer for it was a failure (not to be re-attached). */
  private readonly failedIn = new Map<string, Set<string>>();
  /** custom_id → why its last batch answer was a failure. */
  private readonly failureReason = new Map<string, string>();
  /** custom_id → new batches tried after failures. */
  private readonly batchRetries = new Map<string, number>();
  private pendingResume: Promise<void> | null = null;
  private closed = false;
  /** Aborted by close(): ends the poll loops' waits at once. */
  private readonly stopped = new AbortController();

  /** Waits `ms`, or less when the session closes. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const onStop = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        this.stopped.signal.removeEventListener("abort", onStop);
        resolve();
      }, ms);
      this.stopped.signal.addEventListener("abort", onStop, { once: true });
    });
  }

  /**
   * @param journalPath the run folder's `batches.jsonl`.
   * @param apiFor the Batch API of an endpoint (base URL + key); called once per endpoint.
   * @param log progress and retry lines (stderr in the CLI).
   * @param all true with `run --batch`: every chat endpoint batches; else only endpoints with `batch: true`.
   */
  constructor(
    journalPath: string,
    private readonly apiFor: (baseURL: string, apiKey: string) => BatchApi,
    settings: Partial<BatchSettings> = {},
    private readonly log: (line: string) => void = () => {},
    readonly all = true,
  ) {
    this.settings = BatchSettingsSchema.parse(settings);
    this.journal = BatchJournal.open(journalPath);
    for (const s of this.journal.submissions) if (s.batchId) for (const id of s.customIds) this.submittedIn.set(id, s.batchId);
  }

  /** Journalled submissions without a batch id (the process died while creating it): found on the server by their metadata, or forgotten (never created). */
  private resumeUnconfirmed(api: BatchApi): Promise<void> {
    this.pendingResume ??= (async () => {
      const open = this.journal.submissions.filter((s) => !s.batchId);
      if (!open.length) return;
      const listed = await api.listBatches(100);
      for (const s of open) {
        const b = listed.find((x) => x.metadata?.medsynth_submission === s.submission);
        if (!b) continue;
        this.journal.append({ event: "submitted", submission: s.submission, batchId: b.id, at: new Date().toISOString() });
        for (const id of s.customIds) this.submittedIn.set(id, b.id);
      }
    })();
    return this.pendingResume;
  }

  /**
   * The fetch an endpoint's chat client uses in batch mode: chat-completion POSTs made inside a
   * {@link withBatchCall} go through batches; everything else goes to `online`.
   * @param baseURL the endpoint's base URL (ending in /v1).
   * @param apiKey its key (for the Batch API's requests; never written anywhere).
   * @param online the fetch of the online path (retries of failed lines with `onFailedLine: online`).
   */
  fetchFor(baseURL: string, apiKey: string, online: typeof fetch = globalThis.fetch): typeof fetch {
    return async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const ctx = batchCallContext.getStore();
      if (!ctx || (init?.method ?? "GET").toUpperCase() !== "POST" || !url.split("?")[0].endsWith("/chat/completions") || typeof init?.body !== "string") return online(input, init);
      const bodyText = init.body;
      const h = sha256(bodyText);
      if (!ctx.bodies.has(h)) ctx.bodies.set(h, ctx.bodies.size + 1);
      const turn = ctx.bodies.get(h)!;
      const customId = turn === 1 ? ctx.key : `${ctx.key}~${turn}`;
      const api = this.api(baseURL, apiKey);
      await this.resumeUnconfirmed(api);
      return this.serve({ baseURL, api, customId, body: JSON.parse(bodyText) as { model?: string }, signal: init.signal ?? undefined, online: () => online(input, init) });
    };
  }

  /**
   * One request's answer: from the batch it was submitted in (this run's or an earlier one's), or
   * from the next wave; after a failure there, retried online or in a new batch.
   */
  private async serve(r: { baseURL: string; api: BatchApi; customId: string; body: { model?: string }; signal: AbortSignal | undefined; online: () => Promise<Response> }): Promise<Response> {
    if (this.closed) throw new Error("run interrupted: batch session closed; re-run to re-attach to its batches");
    const known = this.submittedIn.get(r.customId);
    if (known !== undefined && this.failedIn.get(r.customId)?.has(known)) {
      const n = this.batchRetries.get(r.customId) ?? 0;
      const inBatch = this.settings.batchOnly || (this.settings.onFailedLine === "batch" && n < this.settings.maxBatchRetries);
      this.journal.append({
        event: "retried",
        customId: r.customId,
        batchId: known,
        how: inBatch ? "batch" : "online",
        reason: this.failureReason.get(r.customId) ?? "failed",
        at: new Date().toISOString(),
      });
      if (!inBatch) {
        this.stats.retriedOnline++;
        return r.online();
      }
      this.stats.retriedInBatch++;
      this.batchRetries.set(r.customId, n + 1);
      this.submittedIn.delete(r.customId);
    }
    const current = this.submittedIn.get(r.customId);
    const outcome =
      current !== undefined
        ? await this.waitOn(this.trackers.get(current) ?? this.track(r.api, current, r.body.model ?? "?", true), r.customId, r.signal)
        : await this.enqueue(r.baseURL, r.api, r.customId, r.body, r.signal);
    const res = outcome.line?.response;
    if (res) {
      if (res.status_code >= 400) {
        // Handed back as the HTTP error it was: the call layer's retry policy decides (a 5xx/429 is retried, through serve() again).
        this.stats.failedLines++;
        this.noteFailure(r.customId, outcome.batchId, `HTTP ${res.status_code} in batch ${outcome.batchId}`);
      }
      return new Response(JSON.stringify(res.body ?? {}), { status: res.status_code, headers: { "content-type": "application/json" } });
    }
    // No response: an error line without one, or the batch ended (expired, failed, cancelled) first.
    this.stats.missingLines++;
    this.noteFailure(r.customId, outcome.batchId, outcome.line?.error?.message ?? `batch ${outcome.batchId} ${outcome.batchStatus} without an answer`);
    return this.serve(r);
  }

  private readonly apis = new Map<string, BatchApi>();
  private api(baseURL: string, apiKey: string): BatchApi {
    const k = `${baseURL}\u0000${sha256(apiKey)}`;
    let a = this.apis.get(k);
    if (!a) this.apis.set(k, (a = this.apiFor(baseURL, apiKey)));
    return a;
  }

  private noteFailure(customId: string, batchId: string, reason: string): void {
    let s = this.failedIn.get(customId);
    if (!s) this.failedIn.set(customId, (s = new Set()));
    s.add(batchId);
    this.failureReason.set(customId, reason);
  }

  /** Counts a result line of tracker `t` in the stats (lines done; re-attached when `t` was), once per custom_id. */
  private countLine(t: Tracker, customId: string, line: BatchResultLine | null): void {
    if (!line || t.counted.has(customId)) return;
    t.counted.add(customId);
    this.stats.linesDone++;
    if (t.reattached) this.stats.reattached++;
  }

  private waitOn(t: Tracker, customId: string, signal: AbortSignal | undefined): Promise<LineOutcome> {
    if (t.results) {
      // A call that asks after the batch's results arrived (e.g. a re-run's later cells) is counted too.
      const line = t.results.get(customId) ?? null;
      this.countLine(t, customId, line);
      return Promise.resolve({ line, batchId: t.batchId, batchStatus: t.status ?? "?" });
    }
    return new Promise<LineOutcome>((resolve, reject) => {
      const list = t.waiters.get(customId) ?? [];
      list.push({ resolve, reject });
      t.waiters.set(customId, list);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }

  private enqueue(baseURL: string, api: BatchApi, customId: string, body: { model?: string }, signal: AbortSignal | undefined): Promise<LineOutcome> {
    if (this.closed) return Promise.reject(new Error("batch session closed"));
    const model = body.model ?? "?";
    const qk = `${baseURL}\u0000${model}`;
    let q = this.queues.get(qk);
    if (!q) this.queues.set(qk, (q = { endpoint: baseURL, api, model, waiting: [] }));
    const queue = q;
    return new Promise<LineOutcome>((resolve, reject) => {
      queue.waiting.push({ customId, body, resolve, reject });
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      if (queue.timer) clearTimeout(queue.timer);
      if (queue.waiting.length >= this.settings.maxLines) void this.flush(qk);
      else queue.timer = setTimeout(() => void this.flush(qk), this.settings.idleMs);
    });
  }

  /** Submit a queue's waiting requests as one batch (journalled first). */
  private async flush(qk: string): Promise<void> {
    const q = this.queues.get(qk);
    if (!q || !q.waiting.length) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = undefined;
    // One line per custom_id (identical calls share one request through the call cache already).
    const waiting = q.waiting.splice(0, this.settings.maxLines);
    if (q.waiting.length) q.timer = setTimeout(() => void this.flush(qk), 0);
    const byId = new Map<string, Waiter[]>();
    for (const w of waiting) byId.set(w.customId, [...(byId.get(w.customId) ?? []), w]);
    const ids = [...byId.keys()];
    const submission = randomUUID();
    try {
      this.journal.append({ event: "submitting", submission, endpoint: q.endpoint, model: q.model, customIds: ids, at: new Date().toISOString() });
      const jsonl = ids.map((id) => JSON.stringify({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: byId.get(id)![0].body })).join("\n") + "\n";
      const fileId = await q.api.uploadFile(jsonl, `medsynth-${submission}.jsonl`);
      const batch = await q.api.createBatch(fileId, "/v1/chat/completions", this.settings.completionWindow, { medsynth_submission: submission });
      this.journal.append({ event: "submitted", submission, batchId: batch.id, at: new Date().toISOString() });
      this.stats.batches++;
      this.stats.linesSubmitted += ids.length;
      this.log(`batch ${batch.id}: submitted ${ids.length} request(s) to ${q.model} at ${q.endpoint}`);
      for (const id of ids) this.submittedIn.set(id, batch.id);
      const t = this.track(q.api, batch.id, q.model, false);
      for (const [id, ws] of byId) for (const w of ws) this.waitOn(t, id, undefined).then(w.resolve, w.reject);
    } catch (e) {
      for (const ws of byId.values()) for (const w of ws) w.reject(e);
    }
  }

  /** Follow a batch to its final state, then hand every waiter its line. */
  private track(api: BatchApi, batchId: string, model: string, reattached: boolean): Tracker {
    const t: Tracker = { batchId, api, model, waiters: new Map(), done: Promise.resolve(), reattached, counted: new Set() };
    this.trackers.set(batchId, t);
    t.done = (async () => {
      let b: BatchObject;
      let lastLog = 0;
      const started = Date.now();
      for (;;) {
        if (this.closed) return; // the session ended (run finished or interrupted): the batch runs on, a re-run re-attaches
        b = await api.getBatch(batchId);
        if (FINAL_BATCH_STATES.has(b.status)) break;
        if (Date.now() - lastLog > Math.max(10_000, this.settings.pollMs)) {
          lastLog = Date.now();
          this.log(progressLine(b, model, started));
        }
        await this.sleep(this.settings.pollMs);
      }
      const results = new Map<string, BatchResultLine>();
      for (const fileId of [b.output_file_id, b.error_file_id]) {
        if (!fileId) continue;
        for (const line of parseBatchResults(await api.fileContent(fileId), `batch ${batchId} file ${fileId}`)) results.set(line.custom_id, line);
      }
      this.journal.append({ event: "final", batchId, status: b.status, completed: b.request_counts?.completed, failed: b.request_counts?.failed, at: new Date().toISOString() });
      this.log(
        `batch ${batchId}: ${b.status}, ${results.size} result line(s)${b.request_counts ? ` (${b.request_counts.completed} completed, ${b.request_counts.failed} failed of ${b.request_counts.total})` : ""}`,
      );
      t.status = b.status;
      t.results = results;
      for (const [id, list] of t.waiters) {
        const line = results.get(id) ?? null;
        this.countLine(t, id, line);
        for (const w of list) w.resolve({ line, batchId, batchStatus: b.status });
      }
      t.waiters.clear();
    })();
    t.done.catch((e) => {
      for (const list of t.waiters.values()) for (const _ of list) this.log(`batch ${batchId}: ${(e as Error).message}`);
    });
    return t;
  }

  /**
   * The run was interrupted: every call still waiting for a batch ends now with an error (the
   * runner writes no record for an interrupted cell) and polling stops; the batches themselves run
   * on and a re-run re-attaches to them.
   */
  abandon(): void {
    this.closed = true;
    this.stopped.abort();
    const err = new Error("run interrupted: the call's batch keeps running; re-run to re-attach");
    for (const q of this.queues.values()) {
      if (q.timer) clearTimeout(q.timer);
      for (const w of q.waiting.splice(0)) w.reject(err);
    }
    for (const t of this.trackers.values()) {
      for (const list of t.waiters.values()) for (const w of list) w.reject(err);
      t.waiters.clear();
    }
  }

  /** Batches of this session not yet final (left running on exit unless cancelled). */
  inFlight(): string[] {
    return [...this.trackers.values()].filter((t) => !t.results).map((t) => t.batchId);
  }

  /**
   * End the session: with `cancel`, ask the server to cancel every batch still in flight (their
   * finished lines stay billable); otherwise they keep running and a re-run re-attaches to them.
   * @returns the ids of the batches left running or cancelled.
   */
  async close(opts: { cancel?: boolean } = {}): Promise<string[]> {
    this.closed = true;
    this.stopped.abort();
    for (const q of this.queues.values()) if (q.timer) clearTimeout(q.timer);
    const open = [...this.trackers.values()].filter((t) => !t.results);
    if (opts.cancel) for (const t of open) await t.api.cancelBatch(t.batchId).catch((e) => this.log(`batch ${t.batchId}: cancel failed: ${(e as Error).message}`));
    return open.map((t) => t.batchId);
  }
}

/** `batch b_1 (gpt-4o-mini): in_progress, 120/500 lines done, 2 failed; 3m elapsed, ETA 9m`. */
export function progressLine(b: BatchObject, model: string, startedMs: number, now = Date.now()): string {
  const c = b.request_counts;
  const elapsed = (now - startedMs) / 1000;
  const done = c ? c.completed + c.failed : 0;
  const eta = c && done > 0 && c.total > done ? ` ETA ${fmtDuration((elapsed / done) * (c.total - done))}` : "";
  return `batch ${b.id} (${model}): ${b.status}${c ? `, ${done}/${c.total} lines done, ${c.failed} failed` : ""}; ${fmtDuration(elapsed)} elapsed${eta}`;
}

function fmtDuration(s: number): string {
  if (s < 90) return `${Math.round(s)}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  return `${(s / 3600).toFixed(1)}h`;
}
