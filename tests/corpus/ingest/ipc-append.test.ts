/**
 * The ingest's write path (issue 10, whole-ingest speed): workers encode each batch as Arrow IPC
 * file bytes into a reused buffer (`encodeBatchIpc`), the writer appends those bytes through
 * LanceDB's native add when the pinned version has it, else through the public `Table.add`
 * (`ipcAppender`) — both must give the same table; and each file's sha256, now computed in the
 * parser's read pass, must still be the sha256 of the file on disk (done, truncated and
 * bad-UTF-8 files alike, the bad byte still reported at its offset).
 */
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { encodeBatchIpc, RowBatchBuilder } from "../../../corpus/ingest/arrow-batch.ts";
import { ingestFile } from "../../../corpus/ingest/ingest-file.ts";
import type { RecordRow } from "../../../corpus/ingest/rows.ts";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { installedLancedbVersion, ipcAppender, NATIVE_ADD_LANCEDB_VERSION } from "../../../corpus/store/lance-append.ts";
import { connectStore, loadArrow, openLanceRecordStore, recordsSchema } from "../../../corpus/store/lance-store.ts";
import { CleanOptionsSchema } from "../../../corpus/clean.ts";
import { citationXml, writeSet } from "./fixtures.ts";

const row = (over: Partial<RecordRow>): RecordRow => ({
  rowKey: 0,
  fileIndex: 0,
  pmid: "1",
  version: 1,
  kind: "record",
  dropReason: null,
  doiKey: null,
  titleKey: null,
  kwEmpty: 0,
  kwOverlong: 0,
  kwNonAscii: 0,
  kwDuplicate: 0,
  sourceFile: "f.xml",
  title: "",
  year: null,
  record: "",
  ...over,
});
const ROWS = [
  row({ rowKey: 2 ** 24 + 1, fileIndex: 1, pmid: "11", version: 2, doiKey: "10.1/ü", titleKey: "0123456789abcdef", kwDuplicate: 1, title: "Tïtle “q” 🧬", year: 2001, record: '{"t":"Ω"}' }),
  row({ rowKey: 2 ** 24 + 2, fileIndex: 1, pmid: "12", kind: "dropped", dropReason: "no-abstract" }),
  row({ rowKey: 2 ** 24 + 3, fileIndex: 1, pmid: "13", kind: "delete", sourceFile: "pubmed25n0002.xml.gz" }),
];
const plain = (rows: unknown[]) => (rows as { toJSON(): Record<string, unknown> }[]).map((r) => ({ ...r.toJSON() }));
const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("encodeBatchIpc", () => {
  it("gives IPC file bytes of the batch, in the spare buffer when it is large enough", async () => {
    const arrow = loadArrow();
    const schema = await recordsSchema("none");
    const b = new RowBatchBuilder(4);
    for (const r of ROWS) b.push(r);
    const first = await encodeBatchIpc(arrow, schema, b.columns(false), []);
    expect(first.rows).toBe(3);
    expect(first.buffer.byteLength).toBeGreaterThanOrEqual(first.length);
    const bytes = new Uint8Array(first.buffer, 0, first.length);
    expect(Buffer.from(bytes.subarray(0, 6)).toString("latin1")).toBe("ARROW1");
    expect(plain(arrow.tableFromIPC(bytes).toArray())).toEqual(ROWS);
    // Reused: the builder is reset, one row re-encoded into the first buffer (large enough).
    b.reset();
    b.push(ROWS[1]);
    const tiny = new ArrayBuffer(8);
    const spares = [first.buffer, tiny];
    const second = await encodeBatchIpc(arrow, schema, b.columns(false), spares);
    expect(second.buffer).toBe(first.buffer);
    expect(spares).toEqual([tiny]);
    expect(plain(arrow.tableFromIPC(new Uint8Array(second.buffer, 0, second.length)).toArray())).toEqual([ROWS[1]]);
    // Only spares too small: a new buffer, and the smallest spare is dropped.
    const small = await encodeBatchIpc(arrow, schema, b.columns(false), spares);
    expect(small.buffer.byteLength).toBeGreaterThan(8);
    expect(spares).toEqual([]);
  });
});

describe("ipcAppender", () => {
  it("appends the same rows through LanceDB's native add (pinned version) and through the public Table.add", async () => {
    const arrow = loadArrow();
    const schema = await recordsSchema("none");
    const b = new RowBatchBuilder(4);
    for (const r of ROWS) b.push(r);
    const ipc = await encodeBatchIpc(arrow, schema, b.columns(false), []);
    const db = await connectStore({ uri: mkdtempSync(join(tmpdir(), "medsynth-ipc-")) });
    const read = async (name: string, publicOnly: boolean) => {
      const table = await db.createEmptyTable(name, schema);
      const append = ipcAppender(table, { publicOnly });
      await append(Buffer.from(ipc.buffer, 0, ipc.length));
      await append(Buffer.from(ipc.buffer, 0, ipc.length));
      expect(await table.countRows()).toBe(6);
      const rows = plain(await table.query().toArray()).sort((x, y) => Number(x.rowKey) - Number(y.rowKey));
      return { native: append.native, rows };
    };
    expect(installedLancedbVersion()).toBe(NATIVE_ADD_LANCEDB_VERSION);
    const viaNative = await read("native", false);
    const viaPublic = await read("public", true);
    expect(viaNative.native).toBe(true);
    expect(viaPublic.native).toBe(false);
    expect(viaNative.rows).toEqual([ROWS[0], ROWS[0], ROWS[1], ROWS[1], ROWS[2], ROWS[2]]);
    expect(viaPublic.rows).toEqual(viaNative.rows);
  });

  it("a whole ingest gives the same store on the public path (MEDSYNTH_LANCE_PUBLIC_ADD=1)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-ipc-ingest-"));
    writeSet(
      dir,
      "pubmed25n0001.xml",
      [
        { pmid: "101", title: "Alpha trial.", doi: "10.1/a" },
        { pmid: "102", title: "Beta cohort." },
        { pmid: "103", title: "Alpha trial." },
      ],
      [],
    );
    const input = join(dir, "pubmed25n0001.xml");
    const build = async (uri: string) => {
      const report = await ingestToStore([input], { store: { uri }, jobs: 1, clean: {}, batchRows: 2 });
      const store = await openLanceRecordStore({ uri });
      const recs: unknown[] = [];
      for await (const batch of store.scanRecords()) recs.push(...batch);
      return { counts: report.meta.counts, recs };
    };
    const native = await build(join(dir, "native"));
    const before = process.env.MEDSYNTH_LANCE_PUBLIC_ADD;
    process.env.MEDSYNTH_LANCE_PUBLIC_ADD = "1";
    try {
      const viaPublic = await build(join(dir, "public"));
      expect(viaPublic).toEqual(native);
    } finally {
      if (before === undefined) delete process.env.MEDSYNTH_LANCE_PUBLIC_ADD;
      else process.env.MEDSYNTH_LANCE_PUBLIC_ADD = before;
    }
    expect(native.counts?.kept).toBe(2);
    expect(native.counts?.dropped["duplicate-title"]).toBe(1);
  });
});

describe("ingestFile: sha256 in the read pass", () => {
  const clean = CleanOptionsSchema.parse({});
  const run = (path: string) => ingestFile({ path, file: "x", fileIndex: 0, clean, batchRows: 2 }, async () => {});

  it("is the sha256 of the file on disk for a done .xml.gz, a truncated one and a file with a bad UTF-8 byte (reported at its offset)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-sha-"));
    const xml = `<PubmedArticleSet>${[1, 2, 3].map((i) => citationXml({ pmid: String(200 + i), title: `T ${i}.` })).join("")}</PubmedArticleSet>`;
    const gz = join(dir, "a.xml.gz");
    // Larger than one read chunk (256 KiB), so the hash spans several chunks.
    writeFileSync(gz, gzipSync(Buffer.concat([Buffer.from(xml), Buffer.from(`<!--${"x".repeat(600_000)}-->`)]), { level: 0 }));
    const done = await run(gz);
    expect(done.status).toBe("done");
    expect(done.records).toBe(3);
    expect(done.sha256).toBe(sha(gz));

    const cut = join(dir, "b.xml.gz");
    const full = gzipSync(Buffer.from(xml));
    writeFileSync(cut, full.subarray(0, Math.floor(full.length / 2)));
    const truncated = await run(cut);
    expect(truncated.status).toBe("failed");
    expect(truncated.sha256).toBe(sha(cut));

    const bad = join(dir, "c.xml");
    const bytes = Buffer.from(xml);
    const at = bytes.indexOf("T 2.");
    bytes[at] = 0xff;
    writeFileSync(bad, bytes);
    const invalid = await run(bad);
    expect(invalid.status).toBe("failed");
    expect(invalid.byteOffset).toBe(at);
    expect(invalid.sha256).toBe(sha(bad));
  });
});
