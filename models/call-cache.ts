/**
 * Disk cache of model calls: one JSON file per key under `<cacheDir>/calls/<2 hex>/<key>.json`,
 * written atomically (temp file + rename). Keys are SHA-256 of a canonical JSON of what determines
 * the answer (provider, model, parameters, messages, prompt id/version, repeat index, schema),
 * never of secrets. Concurrent identical calls share one in-flight computation; failures are
 * never stored.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { cacheDir as defaultCacheDir } from "../corpus/paths.ts";

/** What identifies a call. Put only answer-determining, non-secret fields here. */
export interface CacheKeyParts {
  /** `chat` | `structured` | `embedding` | … */
  kind: string;
  provider: string;
  /**
   * The endpoint that answers, as {@link endpointCacheId} of its base URL (two servers serving the
   * same model name must not share answers). Never holds credentials.
   */
  endpoint?: string;
  model: string;
  params?: unknown;
  messages?: unknown;
  promptId?: string;
  promptVersion?: string;
  repeat?: number;
  schema?: { name: string; hash: string; method?: string };
  /** Anything else that changes the answer (e.g. embedding input text). */
  extra?: unknown;
}

/** JSON with object keys sorted recursively (undefined members dropped), for stable hashing. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stableStringify(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
}

/** SHA-256 hex of a value's stable JSON. */
export function sha256Of(value: unknown): string {
  return createHash("sha256")
    .update(typeof value === "string" ? value : stableStringify(value))
    .digest("hex");
}

/**
 * The endpoint part of a cache key: the base URL normalised so that spellings of one endpoint
 * agree (scheme and host lower-cased, default port dropped, trailing slashes removed) and stripped
 * of anything that may carry a secret (user:password, query string, fragment). The API key is
 * never part of it (it travels in a header).
 * @example endpointCacheId("http://LocalHost:8000/v1/") === "http://localhost:8000/v1"
 * @returns the normalised URL; for a string that is not a URL, the trimmed string without trailing slashes.
 */
export function endpointCacheId(baseURL: string): string {
  let u: URL;
  try {
    u = new URL(baseURL.trim());
  } catch {
    return baseURL.trim().replace(/\/+$/, "");
  }
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
}

/** Cache key of a call: SHA-256 (hex) of the stable JSON of `parts` plus a format version. */
export function callCacheKey(parts: CacheKeyParts): string {
  return sha256Of({ cacheFormat: 1, ...parts });
}

/** Stored file content. */
export interface CacheEntry<T> {
  key: string;
  createdAt: string;
  parts?: CacheKeyParts;
  value: T;
}

/** Result of {@link CallCache.getOrCompute}. */
export interface CacheLookup<T> {
  value: T;
  /** `hit`: read from disk; `shared`: joined an identical in-flight call; `miss`: computed now. */
  source: "hit" | "shared" | "miss";
}

const inflight = new Map<string, Promise<unknown>>();

/** A call cache rooted at a directory. */
export class CallCache {
  /** Folder holding the entry files (`<root>/calls`). */
  readonly dir: string;
  /** Entries that existed but could not be parsed (treated as misses). */
  corrupt = 0;
  /** Shard folders (`calls/<2 hex>`) this instance has created or found: one mkdir per folder, not per entry (a mkdir per call was ~4 % of a run's CPU). */
  private readonly madeDirs = new Set<string>();
  /**
   * @param root cache root (default {@link defaultCacheDir}()); entries go to `<root>/calls`.
   * @param enabled when false, nothing is read or written (in-flight sharing still applies).
   */
  constructor(
    root: string = defaultCacheDir(),
    readonly enabled = true,
  ) {
    this.dir = join(resolve(root), "calls");
  }

  /** Path of the file for `key`. */
  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** Read an entry's value; undefined when absent, disabled or unreadable. */
  async get<T>(key: string): Promise<T | undefined> {
    if (!this.enabled) return undefined;
    let text: string;
    try {
      text = await readFile(this.pathOf(key), "utf8");
    } catch {
      return undefined;
    }
    try {
      const e = JSON.parse(text) as CacheEntry<T>;
      if (e.key !== key) throw new Error("key mismatch");
      return e.value;
    } catch {
      this.corrupt++;
      return undefined;
    }
  }

  /** Store an entry atomically (temp file + rename). No-op when disabled. */
  async put<T>(key: string, value: T, parts?: CacheKeyParts): Promise<void> {
    if (!this.enabled) return;
    const file = this.pathOf(key);
    const sub = join(this.dir, key.slice(0, 2));
    if (!this.madeDirs.has(sub)) {
      await mkdir(sub, { recursive: true });
      this.madeDirs.add(sub);
    }
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    const entry: CacheEntry<T> = { key, createdAt: new Date().toISOString(), parts, value };
    const text = JSON.stringify(entry);
    try {
      try {
        await writeFile(tmp, text, "utf8");
      } catch (e) {
        // The folder was removed during the run (cache cleared by hand): make it again, once.
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
        await mkdir(sub, { recursive: true });
        await writeFile(tmp, text, "utf8");
      }
      await rename(tmp, file);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
  }

  /**
   * Return the cached value for `key`, or join an identical in-flight computation, or run
   * `compute` and store its result when `shouldStore(result)` (use it to keep failures out).
   * @param acceptHit optional check of a stored value; a rejected entry is recomputed and overwritten.
   * @returns the value and where it came from.
   */
  async getOrCompute<T>(key: string, compute: () => Promise<T>, shouldStore: (v: T) => boolean, parts?: CacheKeyParts, acceptHit?: (v: T) => boolean): Promise<CacheLookup<T>> {
    const flightKey = `${this.dir}|${key}`;
    const running = inflight.get(flightKey) as Promise<CacheLookup<T>> | undefined;
    if (running) {
      const r = await running;
      return { value: r.value, source: "shared" };
    }
    const p = (async (): Promise<CacheLookup<T>> => {
      const hit = await this.get<T>(key);
      if (hit !== undefined && (!acceptHit || acceptHit(hit))) return { value: hit, source: "hit" };
      const value = await compute();
      if (shouldStore(value)) await this.put(key, value, parts);
      return { value, source: "miss" };
    })();
    inflight.set(flightKey, p);
    try {
      return await p;
    } finally {
      inflight.delete(flightKey);
    }
  }
}
