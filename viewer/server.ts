/**
 * The viewer's local web server (node:http, no framework): the results explorer over run folders
 * and the rating app of a study, as JSON routes plus static pages (plain HTML/JS/CSS under
 * `viewer/ui/`, no build step). Every page renders data with `textContent`, and a strict
 * Content-Security-Policy forbids inline scripts, so HTML in outputs, abstracts or rationales
 * stays text.
 *
 * Routes (GET unless noted):
 *   /                     explorer page          /rate/<token>              rating page
 *   /api/meta             runs, facets, columns  /api/rate/<token>          form + blinded tasks
 *   /api/cells?…          one page of cells      POST /api/rate/<token>/<n> submit task n
 *   /api/item?id=…        item page data
 *   /api/export.csv?…     filtered rows as CSV (.jsonl: JSON lines)
 *   /api/compare?a=&b=&diff=1&page=   compare two runs
 * An unknown rater token answers 403 and nothing else.
 *
 * The explorer reads runs through their on-disk indexes (viewer/run-index.ts): `/api/meta`
 * re-checks the results files and extends an index when its file grew; exports stream row by row;
 * a comparison is computed once per pair of runs in a worker thread (viewer/compare.ts), so other
 * requests are answered meanwhile.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ZodError } from "zod";
import { exportColumns, exportRecord, filterAndSort, parseCellQuery, queryCells } from "./cell-query.ts";
import { compareRuns, ensureComparison, stopComparisons } from "./compare.ts";
import { buildItemView } from "./item-view.ts";
import { buildRunIndex, type RunIndex } from "./run-index.ts";
import { raterByToken, raterTasks, ratingForm, submitRating } from "./study/rater-service.ts";
import {
  accessLogLine,
  allowedHosts,
  clientAddress,
  createWebServer,
  hostRefusal,
  plainWhereHttpsExpected,
  redactPath,
  resolveRemote,
  SaveLimiter,
  type RemoteOptions,
  type RemoteSetup,
} from "./study/remote.ts";
import { RatingStore } from "./study/store.ts";
import { checkStudyRun, readStudy, type Study } from "./study/study.ts";
import type { RunRecord } from "../results/run-record.ts";

const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), "ui");

/** Options of {@link startViewerServer} (the remote-rater options: see viewer/study/remote.ts). */
export interface ViewerServerOptions extends RemoteOptions {
  /** Run folders for the explorer (may be empty when only a study is served). */
  runs?: string[];
  /** Study folder for the rating app. */
  study?: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Start comparing runs 0 and 1 in the background at once when two or more runs are served (default true). */
  prefetchCompare?: boolean;
  /** Progress of building or extending a run's index (every 20,000 cells). */
  onIndexProgress?: (run: number, cells: number, bytes: number) => void;
}

/** A started server. */
export interface ViewerServer {
  /** The address the server listens on (`https://` with TLS). */
  url: string;
  /** The base of the links raters get: `--public-url` when given, else `url`. */
  publicUrl: string;
  server: Server;
  index: RunIndex | null;
  study: Study | null;
  /** Stop listening and close the ratings database. */
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { "content-type": type, ...SECURITY_HEADERS });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) =>
  send(
    res,
    status,
    "application/json; charset=utf-8",
    JSON.stringify(value, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v)),
  );

/** CSV text of rows (RFC 4180 quoting via csv-stringify). */
export async function toCsv(columns: string[], rows: Record<string, unknown>[]): Promise<string> {
  const { stringify } = await import("csv-stringify/sync");
  return stringify(rows, { header: true, columns, cast: { boolean: (b: boolean) => String(b) } });
}

const STATIC: Record<string, [string, string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/static/viewer.js": ["viewer.js", "text/javascript; charset=utf-8"],
  "/static/rate.js": ["rate.js", "text/javascript; charset=utf-8"],
  "/static/common.js": ["common.js", "text/javascript; charset=utf-8"],
  "/static/style.css": ["style.css", "text/css; charset=utf-8"],
};

async function readBody(req: IncomingMessage, limit = 1_000_000): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error("request body too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Write export rows to a response as they come, ~1,000 at a time, waiting for the socket to drain
 * (never the whole export in one string): CSV (RFC 4180 quoting via csv-stringify, header first)
 * when `columns` is given, else JSON lines.
 */
async function streamExport(res: ServerResponse, columns: string[] | null, rows: Iterable<Record<string, unknown>>): Promise<void> {
  const { stringify } = await import("csv-stringify/sync");
  let batch: Record<string, unknown>[] = [];
  let first = true;
  const flush = async () => {
    if (!batch.length && !(first && columns)) return;
    const text = columns ? stringify(batch, { header: first, columns, cast: { boolean: (b: boolean) => String(b) } }) : batch.map((r) => JSON.stringify(r) + "\n").join("");
    first = false;
    batch = [];
    if (!res.write(text)) await new Promise<void>((ok) => res.once("drain", () => ok()));
  };
  for (const r of rows) {
    batch.push(r);
    if (batch.length >= 1000) await flush();
  }
  await flush();
  res.end();
}

/**
 * Query parameter `name` as a 0-based run index (`fallback` when absent).
 * @throws Error naming the parameter and its value when it is not a non-negative integer (answered 400).
 */
function runIndexParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new Error(`${name} must be a run index (0-based integer), got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * Query parameter `name` as an integer ≥ `min` (`fallback` when absent).
 * @throws Error naming the parameter and its value otherwise (answered 400).
 */
function intParam(url: URL, name: string, fallback: number, min: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Explorer routes; returns false when the path is not one of them. */
async function explorerRoute(index: RunIndex, url: URL, res: ServerResponse): Promise<boolean> {
  const p = url.pathname;
  if (p === "/api/meta") {
    index.refresh();
    json(res, 200, {
      runs: index.runs.map((r) => ({
        index: r.index,
        name: r.name,
        dir: r.dir,
        cells: r.cells,
        malformedLines: r.malformedLines.length,
        malformedLineNumbers: r.malformedLines.slice(0, 20),
        truncatedTail: r.truncatedTail,
      })),
      totalCells: index.totalCells,
      facets: index.facets,
      scoreColumns: index.scoreColumns,
    });
    return true;
  }
  if (p === "/api/cells") {
    json(res, 200, queryCells(index, parseCellQuery(url.searchParams)));
    return true;
  }
  if (p === "/api/item") {
    const id = url.searchParams.get("id") ?? "";
    const view = buildItemView(index, id);
    if (!view) json(res, 404, { error: `no item "${id}"` });
    else json(res, 200, view);
    return true;
  }
  if (p === "/api/export.csv" || p === "/api/export.jsonl") {
    const params = new URLSearchParams(url.searchParams);
    params.delete("page");
    params.delete("size");
    const q = parseCellQuery(params);
    const db = index.connect();
    let rows: ReturnType<typeof filterAndSort>;
    try {
      rows = filterAndSort(index, q, db);
    } catch (err) {
      db.close(); // a bad query (sort column, run index) is answered 400 before any row
      throw err;
    }
    const csv = p.endsWith(".csv");
    res.writeHead(200, {
      "content-type": csv ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="cells.${csv ? "csv" : "jsonl"}"`,
      ...SECURITY_HEADERS,
    });
    await streamExport(
      res,
      csv ? exportColumns(index) : null,
      (function* () {
        for (const r of rows) yield exportRecord(index, r);
      })(),
    ).finally(() => db.close());
    return true;
  }
  if (p === "/api/compare") {
    const a = runIndexParam(url, "a", 0);
    const b = runIndexParam(url, "b", 1);
    json(res, 200, await compareRuns(index, a, b, { onlyDiffering: url.searchParams.get("diff") === "1", page: intParam(url, "page", 0, 0), size: intParam(url, "size", 50, 1) }));
    return true;
  }
  return false;
}

/** Rating routes; returns false when the path is not one of them. */
async function ratingRoute(ctx: RatingContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<boolean> {
  const m = /^\/(rate|api\/rate)\/([^/]+)(?:\/(\d+))?$/.exec(url.pathname);
  if (!m) return false;
  if (plainWhereHttpsExpected(ctx.remote, req)) {
    json(res, 403, { error: `rating links travel over HTTPS only: use ${ctx.remote.publicUrl!.origin}/rate/…` });
    return true;
  }
  const rater = raterByToken(ctx.study, decodeURIComponent(m[2]));
  if (!rater) {
    json(res, 403, { error: "unknown rater link" });
    return true;
  }
  if (m[1] === "rate") {
    send(res, 200, "text/html; charset=utf-8", readFileSync(join(UI_DIR, "rate.html")));
    return true;
  }
  if (req.method === "GET" && !m[3]) {
    json(res, 200, { rater: rater.id, study: ctx.study.name, form: ratingForm(ctx.study), tasks: raterTasks(ctx.study, ctx.records, ctx.store, rater) });
    return true;
  }
  if (req.method === "POST" && m[3]) {
    const wait = ctx.limiter.take(rater.id);
    if (wait) {
      res.setHeader("retry-after", String(wait));
      json(res, 429, { error: `too many saves from this link: wait ${wait} s`, retryAfterS: wait });
      return true;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      json(res, 400, { error: "body must be JSON" });
      return true;
    }
    const out = submitRating(ctx.study, ctx.store, rater, Number(m[3]), (body ?? {}) as Record<string, unknown>);
    if ("error" in out) json(res, 400, out);
    else if (!out.ok) json(res, 409, { error: "this task was saved from another tab or window; reloaded", current: out.current });
    else json(res, 200, { saved: true, revision: out.rating.revision });
    return true;
  }
  json(res, 405, { error: "method not allowed" });
  return true;
}

/** What the rating routes need. */
interface RatingContext {
  study: Study;
  records: Map<string, RunRecord>;
  store: RatingStore;
  remote: RemoteSetup;
  limiter: SaveLimiter;
}

/** Write one access-log line when the response ends; rater tokens never reach the log. */
function logRequest(remote: RemoteSetup, study: Study | null, req: IncomingMessage, res: ServerResponse): void {
  const t0 = Date.now();
  res.once("finish", () => {
    const path = (req.url ?? "/").split("?")[0];
    const shown = redactPath(path, (tok) => (study ? (raterByToken(study, tok)?.id ?? null) : null));
    remote.log!(accessLogLine(new Date(), clientAddress(remote, req), req.method ?? "?", shown, res.statusCode, Date.now() - t0));
  });
}

/**
 * Start the server.
 * @throws Error when a run folder has no results.jsonl, the study is missing, its run cells
 *   changed since it was created (refused with the reason), or a remote option is invalid
 */
export async function startViewerServer(opts: ViewerServerOptions): Promise<ViewerServer> {
  const index = opts.runs && opts.runs.length ? buildRunIndex(opts.runs, { onProgress: opts.onIndexProgress }) : null;
  let study: Study | null = null;
  let ratingCtx: RatingContext | null = null;
  const remote = resolveRemote(opts);
  if (opts.study) {
    study = readStudy(opts.study);
    const records = checkStudyRun(study);
    ratingCtx = { study, records, store: new RatingStore(opts.study), remote, limiter: new SaveLimiter(remote.savesPerMinute) };
  }
  // Two or more runs: compare runs 0 and 1 at once, in the background (a worker thread), so the
  // compare page is ready when asked for.
  if (index && index.runs.length >= 2 && opts.prefetchCompare !== false) ensureComparison(index, 0, 1).catch(() => {});
  const host = opts.host ?? "127.0.0.1";
  const allowed = allowedHosts(remote, host);
  const server = createWebServer(remote, (req, res) => {
    if (remote.log) logRequest(remote, study, req, res);
    void (async () => {
      try {
        // answer only requests addressed to this server's names (loopback names on a loopback
        // interface, the --public-url host): a web page elsewhere cannot reach it through DNS rebinding
        const refusal = hostRefusal(remote, allowed, req);
        if (refusal) {
          json(res, 403, { error: refusal });
          return;
        }
        const url = new URL(req.url ?? "/", "http://localhost");
        const st = STATIC[url.pathname];
        if (req.method === "GET" && st && (url.pathname !== "/" || index)) {
          send(res, 200, st[1], readFileSync(join(UI_DIR, st[0])));
          return;
        }
        if (index && req.method === "GET" && (await explorerRoute(index, url, res))) return;
        if (ratingCtx && (await ratingRoute(ratingCtx, req, url, res))) return;
        if (url.pathname.startsWith("/rate/") || url.pathname.startsWith("/api/rate/")) {
          json(res, 403, { error: "unknown rater link" });
          return;
        }
        json(res, 404, { error: "not found" });
      } catch (err) {
        const msg = err instanceof ZodError ? err.issues.map((i) => `${i.path.join(".") || "(query)"}: ${i.message}`).join("; ") : err instanceof Error ? err.message : String(err);
        if (!res.headersSent) json(res, 400, { error: msg });
        else res.destroy();
      }
    })();
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, host, () => ok());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  const url = `${remote.tls ? "https" : "http"}://${shownHost}:${addr.port}`;
  return {
    url,
    publicUrl: remote.publicUrl ? remote.publicUrl.origin : url,
    server,
    index,
    study,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => {
          ratingCtx?.store.close();
          void (index ? stopComparisons(index) : Promise.resolve()).finally(() => {
            index?.close();
            ok();
          });
        });
      }),
  };
}
