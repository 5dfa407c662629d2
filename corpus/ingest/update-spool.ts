/**
 * PubMed's update semantics for the one-thread JSONL ingest (`corpus ingest --out`, without
 * `--clean`): the same resolution as the store ingest ({@link resolveRows}: a DeleteCitation
 * removes the PMID's record, a later file or a higher Version replaces it, duplicates collapse to
 * one), with the record bodies kept on disk instead of in memory.
 *
 * Records stream to a spool file beside the output (one JSON line each, `.<out>.spool-<pid>`)
 * while only their keys (PMID, version, kind: ~200 B an entry, ~200 MB per million entries) stay in memory; {@link
 * UpdateSpool.finish} resolves the keys and copies the winning lines, in stream order, to the
 * output (gzip when it ends in `.gz`), then removes the spool. The output file is created only
 * there: a run that fails before `finish` leaves an existing output untouched and creates none.
 *
 * @see NLM, "MEDLINE/PubMed baseline and update files" (DeleteCitation, revised citations).
 */
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { once } from "node:events";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { PubmedRecord } from "../types.ts";
import type { UpdateReport } from "../clean.ts";
import { createJsonlWriter } from "../jsonl.ts";
import { resolveRows, type RowKeys } from "./rows.ts";

/** An ingest's records on their way to a JSONL output, update semantics applied at the end. */
export interface UpdateSpool {
  /** Add one parsed entry (DeleteCitation entries included), in stream order. */
  add(record: PubmedRecord): Promise<void>;
  /**
   * Resolve the update semantics and write the winning records to the output (created here).
   * @returns records written and what the update semantics did, PMIDs named.
   */
  finish(): Promise<{ written: number; updates: UpdateReport }>;
  /** Remove the spool without writing the output. */
  discard(): Promise<void>;
}

function versionNumber(v: string): number {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Create a spool for the output `out` (see the module comment).
 * @param out - the JSONL output path (`.gz` compressed).
 */
export function createUpdateSpool(out: string): UpdateSpool {
  const spoolPath = join(dirname(out), `.${basename(out)}.spool-${process.pid}`);
  let spool: WriteStream | null = null;
  let error: Error | null = null;
  const keys: RowKeys[] = [];
  /** Line of the spool holding each entry's record; -1 for a DeleteCitation entry. */
  const lineOf: number[] = [];
  let lines = 0;
  const open = (): WriteStream => {
    if (!spool) {
      spool = createWriteStream(spoolPath);
      // An error writing the spool is one writing the output: it names the output (the folder
      // missing or read-only is the user's path, not the hidden spool's).
      spool.on("error", (e: NodeJS.ErrnoException) => {
        if (e.path) e.path = out;
        error = e;
      });
    }
    return spool;
  };
  const closeSpool = async (): Promise<void> => {
    if (!spool) return;
    const s = spool;
    s.end();
    if (!s.closed) await once(s, "close");
  };
  return {
    async add(record) {
      if (error) throw error;
      const deleted = record.flags.deleted;
      keys.push({
        rowKey: keys.length,
        pmid: record.pmid,
        version: versionNumber(record.version),
        kind: deleted ? "delete" : "record",
        dropReason: null,
        doiKey: null,
        titleKey: null,
        kwEmpty: 0,
        kwOverlong: 0,
        kwNonAscii: 0,
        kwDuplicate: 0,
      });
      if (deleted) {
        lineOf.push(-1);
        return;
      }
      lineOf.push(lines++);
      const s = open();
      if (!s.write(`${JSON.stringify(record)}\n`)) await once(s, "drain");
    },
    async finish() {
      await closeSpool();
      if (error) throw error;
      const res = resolveRows(keys, false);
      const keepLine = new Uint8Array(lines);
      for (const i of res.kept) keepLine[lineOf[i]] = 1;
      const writer = createJsonlWriter(out);
      let line = 0;
      if (lines > 0) {
        const rl = createInterface({ input: createReadStream(spoolPath, "utf8"), crlfDelay: Infinity });
        for await (const text of rl) {
          if (keepLine[line++]) await writer.write(JSON.parse(text));
        }
      }
      const written = await writer.close();
      await rm(spoolPath, { force: true });
      return { written, updates: res.updates };
    },
    async discard() {
      await closeSpool();
      await rm(spoolPath, { force: true });
    },
  };
}
