/**
 * Getting a registered data file onto this machine: the one door through which code and tests
 * reach public datasets.
 *
 * `await datasetFile("pubmedqa/ori_pqal.json")` returns the absolute path of a verified copy:
 * 1. the cache folder (`$MEDSYNTH_DATA_DIR`, else the platform cache dir, e.g.
 *    `~/.cache/medsynth/data`), laid out by registry path;
 * 2. else a local mirror folder holding the same layout, used in place (`MEDSYNTH_DATA_MIRROR`
 *    folders, then `../shared/data` beside the checkout when it exists);
 * 3. else it is pulled into the cache: from each URL mirror (`<base>/<registry path>`), then the
 *    upstream (raw GitHub at the pinned commit), with a one-line notice on stderr.
 * Every copy is checked against the registry's sha256 once per process (a cache copy that fails
 * is deleted and fetched again). When nothing works the error names the dataset, its upstream
 * and the pull command. `datasetFileSync` does steps 1–2 only (no network) for code that cannot
 * await; `datasetDir`/`datasetDirSync` do the same for a whole registry folder.
 */
import { existsSync, rmdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { medsynthCommand, REPO_ROOT } from "../paths.ts";
import { withLock } from "../file-lock.ts";
import { type DataFileSource, DEFAULT_UPSTREAM_BASE, dataFilesOf, dataFilesUnder, encodePathSegments, getDataFileSource, upstreamUrl } from "./sources.ts";
import { CacheWriteError, ChecksumMismatchError, copyLocalFile, deleteIfPresent, downloadFile, ensureWritableFolder, sha256FileSync, type TransferOptions } from "./transfer.ts";

/** Where to look for and put data files; every field has an environment default. */
export interface DataAccessOptions {
  /** Cache folder (default {@link dataCacheDir}). */
  cacheDir?: string;
  /** Mirrors tried before the upstream: local folders or http(s) base URLs (default {@link dataMirrors}). */
  mirrors?: string[];
  /** Base of upstream URLs; null = never contact the upstream. Default `$MEDSYNTH_UPSTREAM_BASE`, else raw GitHub. */
  upstreamBase?: string | null;
  /** One-line notices (a pull starting, a bad copy deleted). Default: stderr. */
  notice?: (line: string) => void;
  /** Retries, backoff, timeout, progress of each transfer. */
  transfer?: TransferOptions;
}

/** Where a file is now: a verified-size copy in the cache, one in a local mirror, or neither. */
export type DataFileLocation = { where: "cache"; path: string } | { where: "mirror"; path: string } | { where: "missing"; path: null };

/** How a pull got its file. */
export interface PullResult {
  /** Absolute path of the verified copy in the cache. */
  path: string;
  /** Registry path, e.g. "pubmedqa/ori_pqal.json". */
  rel: string;
  dataset: string;
  bytes: number;
  /** "present": already in the cache; "copied": from a local mirror folder; "downloaded": over HTTP. */
  action: "present" | "copied" | "downloaded";
  /** Cache path, mirror folder or URL the bytes came from. */
  from: string;
  /** Offset an HTTP download resumed after (0 = from the start). */
  resumedFrom: number;
}

/**
 * The data cache folder: `$MEDSYNTH_DATA_DIR`, else the platform cache dir + `medsynth/data`
 * (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows).
 * @returns an absolute path (not created here).
 */
export function dataCacheDir(): string {
  if (process.env.MEDSYNTH_DATA_DIR) return resolve(process.env.MEDSYNTH_DATA_DIR);
  if (process.platform === "darwin") return join(homedir(), "Library", "Caches", "medsynth", "data");
  if (process.platform === "win32") return join(process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"), "medsynth", "Cache", "data");
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "medsynth", "data");
}

/**
 * Folder of a dataset built on this machine by `medsynth datasets prepare <name>` (e.g. MedMeta's
 * golden abstracts and retrieval corpus fetched from PubMed): `$MEDSYNTH_PREPARED_DIR/<name>`, else
 * `<dataCacheDir()>/prepared/<name>` (beside the pulled datasets).
 * @returns an absolute path (not checked for existence).
 */
export function preparedDataDir(name: string): string {
  const root = process.env.MEDSYNTH_PREPARED_DIR ? resolve(process.env.MEDSYNTH_PREPARED_DIR) : join(dataCacheDir(), "prepared");
  return resolve(root, name);
}

/**
 * `../shared/data` beside the checkout when that folder exists and `$MEDSYNTH_AUTO_MIRROR` is not "0";
 * else null. It then counts as a local mirror.
 */
export function autoMirrorDir(): string | null {
  if (process.env.MEDSYNTH_AUTO_MIRROR === "0") return null;
  const dir = resolve(REPO_ROOT, "..", "shared", "data");
  return existsSync(dir) ? dir : null;
}

/**
 * Mirrors in the order they are tried: `explicit` (e.g. `--mirror`), else those in
 * `$MEDSYNTH_DATA_MIRROR` (separated by spaces or ";"), then {@link autoMirrorDir}.
 * Local folders are made absolute.
 */
export function dataMirrors(explicit?: string[]): string[] {
  const given = explicit?.length ? explicit : (process.env.MEDSYNTH_DATA_MIRROR ?? "").split(/[\s;]+/).filter(Boolean);
  const out = given.map((m) => (isUrl(m) ? m : resolve(m)));
  const auto = autoMirrorDir();
  if (auto && !out.includes(auto)) out.push(auto);
  return out;
}

function isUrl(s: string): boolean {
  return /^https?:\/\//i.test(s);
}

interface Resolved {
  cacheDir: string;
  mirrors: string[];
  upstreamBase: string | null;
  notice: (line: string) => void;
  transfer: TransferOptions;
}

function resolveOptions(o: DataAccessOptions = {}): Resolved {
  return {
    cacheDir: o.cacheDir ? resolve(o.cacheDir) : dataCacheDir(),
    mirrors: o.mirrors ? o.mirrors.map((m) => (isUrl(m) ? m : resolve(m))) : dataMirrors(),
    upstreamBase: o.upstreamBase === undefined ? process.env.MEDSYNTH_UPSTREAM_BASE || DEFAULT_UPSTREAM_BASE : o.upstreamBase,
    notice: o.notice ?? ((line) => process.stderr.write(`${line}\n`)),
    transfer: o.transfer ?? {},
  };
}

/** The shell command that pulls datasets (space-separated names), as this install calls the CLI ({@link medsynthCommand}). */
export function pullCommand(dataset: string): string {
  return `${medsynthCommand()} datasets pull ${dataset}`;
}

/** A registered file that could not be found or fetched. Names the dataset, its upstream, what was tried and the pull command. */
export class DatasetUnavailableError extends Error {
  constructor(
    readonly source: DataFileSource,
    readonly tried: string[],
    cacheDir: string,
  ) {
    super(
      [
        `dataset "${source.dataset}": ${source.path} is not available (cache: ${cacheDir}).`,
        ...tried.map((t) => `  - ${t}`),
        // The upstream line unless an attempt above already names that very URL.
        ...(tried.some((t) => t.startsWith(`upstream: ${upstreamUrl(source)}:`)) ? [] : [`Upstream: ${upstreamUrl(source)}`]),
        `Get it with \`${pullCommand(source.dataset)}\` where the network or a mirror is reachable, or point MEDSYNTH_DATA_MIRROR (or --mirror) at a folder or URL holding the files.`,
      ].join("\n"),
    );
    this.name = "DatasetUnavailableError";
  }
}

// ---- verification (once per process per copy) ----

const verified = new Map<string, string>();

type Check = { ok: true } | { ok: false; reason: string; actual?: string };

function checkCopy(path: string, s: DataFileSource): Check {
  let st;
  try {
    st = statSync(path);
  } catch {
    return { ok: false, reason: "absent" };
  }
  if (!st.isFile()) return { ok: false, reason: "not a file" };
  if (st.size !== s.bytes) return { ok: false, reason: `size ${st.size} bytes, expected ${s.bytes}` };
  const key = `${st.size}:${st.mtimeMs}`;
  if (verified.get(path) === key) return { ok: true };
  const actual = sha256FileSync(path);
  if (actual !== s.sha256) return { ok: false, reason: `expected sha256 ${s.sha256}, got ${actual}`, actual };
  verified.set(path, key);
  return { ok: true };
}

/** Check the cache copy; a corrupt one is deleted (with a notice). */
function cachedCopy(s: DataFileSource, r: Resolved, tried: string[]): string | null {
  const p = join(r.cacheDir, s.path);
  if (!existsSync(p)) return null;
  const c = checkCopy(p, s);
  if (c.ok) return p;
  deleteIfPresent(p);
  const line = `medsynth: dataset "${s.dataset}": deleted the cached ${s.path} (${c.reason})`;
  r.notice(line);
  tried.push(`cache ${p}: ${c.reason}; deleted`);
  return null;
}

function mirrorCopy(s: DataFileSource, r: Resolved, tried: string[]): string | null {
  for (const m of r.mirrors) {
    if (isUrl(m)) continue;
    const p = join(m, s.path);
    const c = checkCopy(p, s);
    if (c.ok) return p;
    tried.push(`mirror ${m}: ${c.reason === "absent" ? "not there" : `${p}: ${c.reason} (left as it is; replace it with a good copy)`}`);
  }
  return null;
}

/**
 * Where a file is, cheaply (existence and size, no hashing): cache first, then local mirrors.
 * @param rel registry path.
 * @throws Error when `rel` is not registered.
 */
export function locateDataFile(rel: string, options: DataAccessOptions = {}): DataFileLocation {
  const s = getDataFileSource(rel);
  const r = resolveOptions(options);
  const sized = (p: string) => existsSync(p) && statSync(p).isFile() && statSync(p).size === s.bytes;
  const c = join(r.cacheDir, s.path);
  if (sized(c)) return { where: "cache", path: c };
  for (const m of r.mirrors) if (!isUrl(m) && sized(join(m, s.path))) return { where: "mirror", path: join(m, s.path) };
  return { where: "missing", path: null };
}

/**
 * Which registered files a URL mirror holds, by one HEAD request per file and mirror
 * (`<mirror>/<registry path>`; held = status 200 and, when the server sends one, a Content-Length
 * equal to the registry size). No body is read and nothing is written; the copy is verified when
 * it is pulled. Up to 8 requests at a time, each given `timeoutMs`.
 * @param rels - registry paths to look for.
 * @param options - the mirrors to ask (default {@link dataMirrors}; local folders are skipped).
 * @returns registry path → the first URL mirror holding it; files no URL mirror holds are absent.
 */
export async function probeUrlMirrors(rels: readonly string[], options: DataAccessOptions = {}, timeoutMs = 5000): Promise<Map<string, string>> {
  const urls = resolveOptions(options).mirrors.filter(isUrl);
  const found = new Map<string, string>();
  if (urls.length === 0) return found;
  let next = 0;
  const worker = async () => {
    while (next < rels.length) {
      const rel = rels[next++];
      const s = getDataFileSource(rel);
      for (const m of urls) {
        try {
          const res = await fetch(`${m.replace(/\/+$/, "")}/${encodePathSegments(s.path)}`, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
          const len = res.headers.get("content-length");
          if (res.ok && (len === null || Number(len) === s.bytes)) {
            found.set(rel, m);
            break;
          }
        } catch {
          // unreachable or timed out: not held there
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, rels.length) }, worker));
  return found;
}

/**
 * Path of a verified local copy of a registered file, without touching the network.
 * @param rel registry path, e.g. "pubmed-xml/biopython/pubmed1.xml".
 * @returns an absolute path in the cache or a local mirror.
 * @throws DatasetUnavailableError (names dataset, upstream, pull command) when there is none;
 *   Error when `rel` is not registered.
 */
export function datasetFileSync(rel: string, options: DataAccessOptions = {}): string {
  const s = getDataFileSource(rel);
  const r = resolveOptions(options);
  const tried: string[] = [];
  const p = cachedCopy(s, r, tried) ?? mirrorCopy(s, r, tried);
  if (p) return p;
  if (!tried.some((t) => t.startsWith("cache"))) tried.unshift(`cache: not downloaded`);
  throw new DatasetUnavailableError(s, tried, r.cacheDir);
}

// ---- pulling into the cache ----

const inFlight = new Map<string, Promise<PullResult>>();

/** `fn` holding the pull's lock file (another process pulling the same file is waited for); a cache folder the lock cannot be made in is a {@link CacheWriteError}. */
async function withFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  let locked = false;
  try {
    return await withLock(
      lockPath,
      () => {
        locked = true;
        return fn();
      },
      { pollMs: 100 },
    );
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (!locked && err.code && ["EACCES", "EPERM", "EROFS", "ENOSPC", "ENOTDIR"].includes(err.code)) throw new CacheWriteError(join(lockPath, ".."), err);
    throw e;
  }
}

/** "2.6 MB", "19.9 kB", "733 B" (decimal units). */
export function humanBytes(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`;
}

/** Try each source in order (local mirror folders, URL mirrors, upstream) until one gives a verified file. */
async function fetchIntoCache(s: DataFileSource, r: Resolved, tried: string[], announce: boolean): Promise<PullResult> {
  const dest = join(r.cacheDir, s.path);
  ensureWritableFolder(join(dest, ".."));
  try {
    return await fetchLocked(s, r, tried, announce, dest);
  } catch (e) {
    // A file that could not be had leaves no empty dataset folder behind in the cache.
    if (e instanceof DatasetUnavailableError) removeEmptyFolders(dirname(dest), r.cacheDir);
    throw e;
  }
}

/** Remove `folder` and its parents while they are empty, up to (not including) `root`. */
function removeEmptyFolders(folder: string, root: string): void {
  const top = resolve(root);
  for (let f = resolve(folder); f !== top && f.startsWith(`${top}${sep}`); f = dirname(f)) {
    try {
      rmdirSync(f); // fails on a folder that holds anything
    } catch {
      return;
    }
  }
}

/** {@link fetchIntoCache} under the file's lock. */
function fetchLocked(s: DataFileSource, r: Resolved, tried: string[], announce: boolean, dest: string): Promise<PullResult> {
  return withFileLock(`${dest}.lock`, async () => {
    const again = cachedCopy(s, r, tried); // another process may have fetched it meanwhile
    if (again) return { path: again, rel: s.path, dataset: s.dataset, bytes: s.bytes, action: "present", from: again, resumedFrom: 0 };
    const sources: { kind: "local" | "http"; label: string; where: string }[] = [];
    for (const m of r.mirrors) {
      // A local mirror already checked (and found wanting) by the caller is not tried again.
      if (!isUrl(m) && tried.some((t) => t.startsWith(`mirror ${m}:`))) continue;
      sources.push(
        isUrl(m) ? { kind: "http", label: `mirror ${m}`, where: `${m.replace(/\/+$/, "")}/${encodePathSegments(s.path)}` } : { kind: "local", label: `mirror ${m}`, where: join(m, s.path) },
      );
    }
    if (r.upstreamBase !== null) sources.push({ kind: "http", label: "upstream", where: upstreamUrl(s, r.upstreamBase) });
    if (sources.length === 0 && tried.length === 0) tried.push("no mirror configured and the upstream is switched off");
    // Checksum failures are told once: in the error when every source fails, else as notices.
    const bad: string[] = [];
    for (const src of sources) {
      try {
        if (announce && src.kind === "http") r.notice(`medsynth: fetching dataset "${s.dataset}" file ${s.path} (${humanBytes(s.bytes)}) from ${src.where} into ${r.cacheDir}`);
        const t = src.kind === "local" ? await copyLocalFile(src.where, dest, s, r.transfer) : await downloadFile(src.where, dest, s, r.transfer);
        verified.set(dest, `${statSync(dest).size}:${statSync(dest).mtimeMs}`);
        for (const line of bad) r.notice(`medsynth: ${line}`);
        return { path: dest, rel: s.path, dataset: s.dataset, bytes: t.bytes, action: src.kind === "local" ? "copied" : "downloaded", from: src.where, resumedFrom: t.resumedFrom };
      } catch (e) {
        if (e instanceof CacheWriteError) throw e;
        tried.push(`${src.label}: ${(e as Error).message}`);
        if (e instanceof ChecksumMismatchError) bad.push(e.message);
      }
    }
    throw new DatasetUnavailableError(s, tried, r.cacheDir);
  });
}

/**
 * Make sure one registered file is in the cache (copy from a local mirror or download), verified.
 * Concurrent calls for the same file in this process share one transfer; other processes wait on
 * a lock file next to it.
 * @throws DatasetUnavailableError after every source failed (each failure listed, a checksum
 *   mismatch with expected and actual sha256); CacheWriteError naming the folder.
 */
export async function pullDataFile(rel: string, options: DataAccessOptions = {}): Promise<PullResult> {
  const s = getDataFileSource(rel);
  const r = resolveOptions(options);
  const key = `${r.cacheDir}\0${rel}`;
  let p = inFlight.get(key);
  if (!p) {
    p = (async () => {
      const tried: string[] = [];
      const have = cachedCopy(s, r, tried);
      if (have) return { path: have, rel: s.path, dataset: s.dataset, bytes: s.bytes, action: "present", from: have, resumedFrom: 0 } satisfies PullResult;
      return fetchIntoCache(s, r, tried, false);
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  return p;
}

/**
 * Path of a verified local copy of a registered file, pulling it into the cache first when no
 * cache or local-mirror copy exists (one-line notice on stderr).
 * @param rel registry path, e.g. "pubmedqa/ori_pqal.json".
 * @throws DatasetUnavailableError naming dataset, upstream and pull command; CacheWriteError.
 */
export async function datasetFile(rel: string, options: DataAccessOptions = {}): Promise<string> {
  const s = getDataFileSource(rel);
  const r = resolveOptions(options);
  const tried: string[] = [];
  const local = cachedCopy(s, r, tried) ?? mirrorCopy(s, r, tried);
  if (local) return local;
  const key = `${r.cacheDir}\0${rel}`;
  let p = inFlight.get(key);
  if (!p) {
    p = fetchIntoCache(s, r, tried, true).finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  return (await p).path;
}

function folderIn(base: string, files: DataFileSource[], _r: Resolved, tried: string[]): boolean {
  return files.every((s) => {
    const c = checkCopy(join(base, s.path), s);
    if (!c.ok && c.reason !== "absent") tried.push(`${base}/${s.path}: ${c.reason}`);
    return c.ok;
  });
}

/**
 * A folder holding verified copies of every registered file under `prefix` (e.g.
 * "pubmed-xml/biopython"): the cache when all are there, else a local mirror holding all of them,
 * else the cache after pulling the missing ones.
 * @returns absolute path of `<cache or mirror>/<prefix>`.
 * @throws DatasetUnavailableError for the first file that cannot be had; CacheWriteError.
 */
export async function datasetDir(prefix: string, options: DataAccessOptions = {}): Promise<string> {
  const files = dataFilesUnder(prefix);
  const r = resolveOptions(options);
  const quick = localFolder(prefix, files, r);
  if (quick) return quick;
  for (const s of files) await pullDataFile(s.path, { ...options, cacheDir: r.cacheDir, mirrors: r.mirrors, upstreamBase: r.upstreamBase, notice: r.notice });
  return join(r.cacheDir, prefix.replace(/\/+$/, ""));
}

function localFolder(prefix: string, files: DataFileSource[], r: Resolved): string | null {
  const tried: string[] = [];
  const p = prefix.replace(/\/+$/, "");
  if (folderIn(r.cacheDir, files, r, tried)) return join(r.cacheDir, p);
  for (const m of r.mirrors) if (!isUrl(m) && folderIn(m, files, r, tried)) return join(m, p);
  return null;
}

/**
 * Like {@link datasetDir} without the network: the cache or a local mirror must already hold every file.
 * @throws DatasetUnavailableError naming the first missing file's dataset, upstream and pull command.
 */
export function datasetDirSync(prefix: string, options: DataAccessOptions = {}): string {
  const files = dataFilesUnder(prefix);
  const r = resolveOptions(options);
  const found = localFolder(prefix, files, r);
  if (found) return found;
  for (const s of files) datasetFileSync(s.path, options); // throws for the first missing one
  // every file exists, but split between cache and mirror: pull needed to gather them
  throw new DatasetUnavailableError(files[0], [`the files under ${prefix} are split between the cache and a mirror; run the pull command to gather them in the cache`], r.cacheDir);
}

/**
 * Pull every file of the given download datasets into the cache.
 * @param names download dataset names (see `downloadDatasetNames()`).
 * @param onFile called after each file with its result.
 * @returns one result per file, in registry order.
 * @throws Error on an unknown name (before any transfer); the first file's DatasetUnavailableError / CacheWriteError.
 */
export async function pullDatasets(names: string[], options: DataAccessOptions = {}, onFile?: (r: PullResult) => void): Promise<PullResult[]> {
  const files = names.flatMap((n) => dataFilesOf(n));
  const out: PullResult[] = [];
  for (const f of files) {
    const res = await pullDataFile(f.path, options);
    onFile?.(res);
    out.push(res);
  }
  return out;
}
