/**
 * One writer at a time on a local corpus store, and what a killed writer left behind.
 *
 * LanceDB writes each data file to a hidden temporary file (`.tmpXXXXXX`) in the table's folder
 * and renames it when complete; a writer killed mid-write (`kill -9` during an ingest's
 * finalisation: a 366 MB `.tmp…` beside a 415 MB store in a fresh user's test) leaves it there,
 * and no later version refers to it, so LanceDB's version cleanup never removes it. Holding the
 * store's writer lock, no other process writes, so every such file is an orphan.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { withLock } from "../file-lock.ts";
import { localStorePath } from "./lance-store.ts";

/** Name of the writer lock file inside a local store's folder. */
export const STORE_WRITER_LOCK = ".writer.lock";

/**
 * Run `fn` as the store's only writer: holding `<store>/.writer.lock`, waiting while another live
 * process holds it (`log` says which, once). `create`: make the store's folder when missing (an
 * ingest creating the store); otherwise a missing folder runs `fn` at once (it reports the
 * missing store itself). A store on object storage has no lock file: `fn` runs at once.
 */
export async function withStoreWriterLock<T>(uri: string, log: (line: string) => void, fn: () => Promise<T>, create = false): Promise<T> {
  const dir = localStorePath(uri);
  if (dir === null) return fn();
  if (!existsSync(dir)) {
    if (!create) return fn();
    mkdirSync(dir, { recursive: true });
  }
  return withLock(join(dir, STORE_WRITER_LOCK), fn, {
    onWait: (pid) => log(`corpus store ${uri}: waiting for process ${pid ?? "(unknown)"}, which is writing to it`),
    onTakeOver: (pid) => log(`corpus store ${uri}: process ${pid} stopped without finishing its write; this one goes on`),
  });
}

/**
 * Remove the temporary files a killed LanceDB writer left in a local store's tables (`.tmp*`
 * in each `<table>.lance` folder and its subfolders). Call it only while holding the store's
 * writer lock ({@link withStoreWriterLock}): a live writer's temporary files look the same.
 * @returns the files removed and their bytes (0 / 0 for an object-storage URI).
 */
export function removeOrphanTempFiles(uri: string): { files: number; bytes: number } {
  const dir = localStorePath(uri);
  const out = { files: 0, bytes: 0 };
  if (dir === null || !existsSync(dir)) return out;
  const sweep = (folder: string) => {
    for (const e of readdirSync(folder, { withFileTypes: true })) {
      const p = join(folder, e.name);
      if (e.isDirectory()) sweep(p);
      else if (e.isFile() && e.name.startsWith(".tmp")) {
        out.bytes += statSync(p).size;
        rmSync(p, { force: true });
        out.files++;
      }
    }
  };
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && e.name.endsWith(".lance")) sweep(join(dir, e.name));
  return out;
}
