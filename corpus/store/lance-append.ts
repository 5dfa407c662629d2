/**
 * Appending Arrow IPC file bytes to a LanceDB table without converting them again.
 *
 * LanceDB's public `Table.add(table)` serialises the Arrow table to IPC file bytes in JavaScript
 * (`fromTableToBuffer`: apache-arrow's writer, one join copy, one `Buffer.from` copy — ~0.4 s of
 * the writer thread's CPU per 30 k-entry input file, most of it page faults on fresh memory) and
 * hands them to its native `add(buffer, mode)`. The ingest's workers already produce those bytes
 * (`corpus/ingest/arrow-batch.ts`, `encodeBatchIpc`), so the writer passes them straight to the
 * native method — the same call, with the same bytes, that `Table.add` makes after its conversion.
 *
 * That method is not public API: it is used only with the LanceDB version it was checked against
 * ({@link NATIVE_ADD_LANCEDB_VERSION}, the exact pin in package.json) and when the table object
 * has it; otherwise, or with `MEDSYNTH_LANCE_PUBLIC_ADD=1`, the bytes are decoded into an Arrow
 * table and appended through the public `Table.add` (same rows, slower). Tests check both paths
 * give the same table.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as LanceDb from "@lancedb/lancedb";
import { loadArrow } from "./lance-store.ts";

/** The LanceDB version whose native `add(buffer, mode)` was checked (Table.add makes that call with IPC file bytes). */
export const NATIVE_ADD_LANCEDB_VERSION = "0.31.0";

/** Appends one batch of Arrow IPC file bytes (one commit); `native` tells which path is used. */
export interface IpcAppender {
  (bytes: Buffer): Promise<void>;
  readonly native: boolean;
}

let installedVersion: string | null | undefined;

/** Version of the installed `@lancedb/lancedb` package (null when it cannot be read). */
export function installedLancedbVersion(): string | null {
  if (installedVersion !== undefined) return installedVersion;
  try {
    const req = createRequire(import.meta.url);
    // The package's exports hide package.json: find it next to the resolved entry (dist/index.js).
    const pkg = join(dirname(dirname(req.resolve("@lancedb/lancedb"))), "package.json");
    installedVersion = (JSON.parse(readFileSync(pkg, "utf8")) as { version?: string }).version ?? null;
  } catch {
    installedVersion = null;
  }
  return installedVersion;
}

type NativeTable = { add(buf: Buffer, mode: string): Promise<unknown> };

/**
 * An appender for `table` (see the module comment).
 * @param table - an open LanceDB table.
 * @param options - `publicOnly`: never use the native method (default: `MEDSYNTH_LANCE_PUBLIC_ADD=1`).
 */
export function ipcAppender(table: LanceDb.Table, options: { publicOnly?: boolean } = {}): IpcAppender {
  const publicOnly = options.publicOnly ?? process.env.MEDSYNTH_LANCE_PUBLIC_ADD === "1";
  const inner = (table as unknown as { inner?: unknown }).inner as Partial<NativeTable> | undefined;
  const native = !publicOnly && installedLancedbVersion() === NATIVE_ADD_LANCEDB_VERSION && inner !== undefined && inner !== null && typeof inner.add === "function";
  const append = native
    ? async (bytes: Buffer) => {
        await (inner as NativeTable).add(bytes, "append");
      }
    : async (bytes: Buffer) => {
        await table.add(loadArrow().tableFromIPC(bytes));
      };
  return Object.assign(append, { native });
}
