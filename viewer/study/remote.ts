/**
 * Serving the rating app to raters on other machines: the public address raters use
 * (`--public-url`, which the Host check and the printed links follow), HTTPS (`--tls-cert` /
 * `--tls-key`), a reverse proxy's `X-Forwarded-Host` / `-Proto` / `-For` honoured only from the
 * proxy addresses named by `--trust-proxy`, an access log with rater tokens replaced by the
 * rater id, and a per-token limit on saves (token bucket).
 *
 * Guide: docs/rating-studies.md ("Raters on other machines").
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";

/** Host names always accepted on a loopback listener. */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** True for a loopback address or name: 127.0.0.0/8, ::1, localhost (brackets allowed). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** True for a wildcard listen address (every interface). */
const isWildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === "[::]";

/** The host name of a Host / X-Forwarded-Host header (first value, without the port), lower-cased. */
export function headerHostName(header: string | string[] | undefined): string {
  const raw = (Array.isArray(header) ? header[0] : header)?.split(",")[0].trim().toLowerCase() ?? "";
  if (!raw) return "";
  if (raw.startsWith("[")) return raw.slice(0, raw.indexOf("]") + 1);
  return raw.split(":")[0];
}

/** Options of the remote setup (all optional; without them the server is local-only as before). */
export interface RemoteOptions {
  /** The address raters use, e.g. `https://ratings.example.org` or `http://10.0.0.5:8766`. */
  publicUrl?: string;
  /** PEM files: serve HTTPS. Both or neither. */
  tlsCert?: string;
  tlsKey?: string;
  /** Addresses of reverse proxies whose `X-Forwarded-*` headers are believed (none by default). */
  trustProxy?: string[];
  /** Saves per minute per rater token (token bucket of that size, refilled continuously); default 30. */
  savesPerMinute?: number;
  /** Access log: one line per request, tokens replaced by `<rater id>` (default: no log). */
  log?: (line: string) => void;
}

/** The resolved remote setup of a server. */
export interface RemoteSetup {
  /** Base URL of the printed links (no trailing slash); null until the server listens (then `url`). */
  publicUrl: URL | null;
  tls: { cert: Buffer; key: Buffer } | null;
  trustProxy: Set<string>;
  savesPerMinute: number;
  log: ((line: string) => void) | null;
}

/**
 * Check and resolve the remote options.
 * @throws Error naming the option: a public URL that is not http(s) or has a path, query or
 *   credentials; only one of the TLS files; a TLS file that cannot be read; a bad save limit
 */
export function resolveRemote(o: RemoteOptions): RemoteSetup {
  let publicUrl: URL | null = null;
  if (o.publicUrl) {
    try {
      publicUrl = new URL(o.publicUrl);
    } catch {
      throw new Error(`--public-url "${o.publicUrl}" is not a URL (e.g. https://ratings.example.org)`);
    }
    if (publicUrl.protocol !== "http:" && publicUrl.protocol !== "https:") throw new Error(`--public-url must start with https:// or http://, got "${o.publicUrl}"`);
    if (publicUrl.username || publicUrl.password || publicUrl.search || publicUrl.hash || (publicUrl.pathname !== "/" && publicUrl.pathname !== "")) {
      throw new Error(`--public-url must be a scheme, host and optional port only (no path, query or credentials), got "${o.publicUrl}"`);
    }
  }
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey)) throw new Error("--tls-cert and --tls-key go together: give both PEM files or neither");
  let tls: RemoteSetup["tls"] = null;
  if (o.tlsCert && o.tlsKey) {
    const read = (flag: string, file: string) => {
      try {
        return readFileSync(file);
      } catch (err) {
        throw new Error(`${flag} ${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    tls = { cert: read("--tls-cert", o.tlsCert), key: read("--tls-key", o.tlsKey) };
  }
  const savesPerMinute = o.savesPerMinute ?? 30;
  if (!Number.isFinite(savesPerMinute) || savesPerMinute < 1) throw new Error(`--save-limit must be at least 1 save per minute, got ${savesPerMinute}`);
  return { publicUrl, tls, trustProxy: new Set((o.trustProxy ?? []).map((a) => a.trim()).filter(Boolean)), savesPerMinute, log: o.log ?? null };
}

/** HTTP or, with TLS files, HTTPS server around one request handler. */
export function createWebServer(setup: Pick<RemoteSetup, "tls">, handler: RequestListener): Server {
  return setup.tls ? (createHttpsServer({ cert: setup.tls.cert, key: setup.tls.key }, handler) as unknown as Server) : createHttpServer(handler);
}

/** The peer address of a request without the IPv4-mapped prefix. */
const peer = (req: IncomingMessage) => (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");

/** True when the request came from a proxy named by `--trust-proxy`. */
export function fromTrustedProxy(setup: Pick<RemoteSetup, "trustProxy">, req: IncomingMessage): boolean {
  return setup.trustProxy.size > 0 && setup.trustProxy.has(peer(req));
}

/** The client address: the last `X-Forwarded-For` hop before a trusted proxy, else the peer. */
export function clientAddress(setup: Pick<RemoteSetup, "trustProxy">, req: IncomingMessage): string {
  if (!fromTrustedProxy(setup, req)) return peer(req);
  const hops = String(req.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return hops.length ? hops[hops.length - 1] : peer(req);
}

/**
 * Host names a request may be addressed to (DNS-rebinding guard): the public URL's host; the
 * listen address when it is a specific one; and the loopback names on a loopback listener (or a
 * wildcard one with a public URL, for the study lead on the machine itself).
 * @returns the set, or null when no check applies (a wildcard or non-loopback listener without
 *   `--public-url`, as before)
 */
export function allowedHosts(setup: Pick<RemoteSetup, "publicUrl">, listenHost: string): Set<string> | null {
  const out = new Set<string>();
  if (setup.publicUrl) out.add(setup.publicUrl.hostname.toLowerCase());
  if (isLoopback(listenHost) || (setup.publicUrl && isWildcard(listenHost))) for (const n of LOOPBACK_NAMES) out.add(n);
  if ((isLoopback(listenHost) || setup.publicUrl) && !isWildcard(listenHost)) out.add(listenHost.toLowerCase().replace(/^(?!\[)(.*:.*)$/, "[$1]"));
  return out.size ? out : null;
}

/**
 * Whether a request passes the Host check: the host it was addressed to (`X-Forwarded-Host` from
 * a trusted proxy, else `Host`) must be one of `allowed`.
 * @returns null when it passes, else the reason for a 403
 */
export function hostRefusal(setup: Pick<RemoteSetup, "trustProxy" | "publicUrl">, allowed: Set<string> | null, req: IncomingMessage): string | null {
  if (!allowed) return null;
  const forwarded = fromTrustedProxy(setup, req) ? headerHostName(req.headers["x-forwarded-host"]) : "";
  const name = forwarded || headerHostName(req.headers.host);
  if (allowed.has(name)) return null;
  return `requests must be addressed to ${[...allowed].filter((h) => h !== "[::1]").join(" or ")}${setup.publicUrl ? "" : " (serving raters elsewhere? start with --public-url <the address they use>)"}`;
}

/**
 * Whether a rating request travelled in plain HTTP although the public URL is HTTPS (a token in
 * the clear): from a trusted proxy, `X-Forwarded-Proto` says; a direct request is plain when the
 * server has no TLS and the peer is not on this machine.
 */
export function plainWhereHttpsExpected(setup: RemoteSetup, req: IncomingMessage): boolean {
  if (setup.publicUrl?.protocol !== "https:") return false;
  if (fromTrustedProxy(setup, req))
    return (
      String(req.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        .trim()
        .toLowerCase() !== "https"
    );
  return !setup.tls && !isLoopback(peer(req));
}

/** A path with rater tokens replaced: `/rate/<rater1>`, `/api/rate/<rater1>/3` (`<unknown>` for a wrong token). */
export function redactPath(path: string, raterOf: (token: string) => string | null): string {
  return path.replace(/^(\/(?:api\/)?rate\/)([^/?#]+)/, (_m, pre: string, tok: string) => {
    let id: string | null = null;
    try {
      id = raterOf(decodeURIComponent(tok));
    } catch {
      id = null;
    }
    return `${pre}<${id ?? "unknown"}>`;
  });
}

/** One access-log line: time, client, method, redacted path (query dropped), status, duration. */
export function accessLogLine(at: Date, client: string, method: string, redactedPath: string, status: number, ms: number): string {
  return `${at.toISOString()} ${client} ${method} ${redactedPath} ${status} ${ms.toFixed(0)}ms`;
}

/**
 * Per-key token bucket: `perMinute` saves at most in a burst, refilled at `perMinute` per minute.
 * Keys are rater ids (one bucket per token).
 */
export class SaveLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Take one save for `key`.
   * @returns 0 when allowed, else the seconds until the next save is allowed (≥ 1)
   */
  take(key: string): number {
    const t = this.now();
    const rate = this.perMinute / 60_000;
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: t };
    b.tokens = Math.min(this.perMinute, b.tokens + (t - b.at) * rate);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
  }
}
