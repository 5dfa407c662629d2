import { describe, expect, it } from "vitest";
import { batchColumnsToTable, batchTransferList, RowBatchBuilder } from "../../../corpus/ingest/arrow-batch.ts";
import type { RecordRow } from "../../../corpus/ingest/rows.ts";
import { loadArrow, recordsSchema } from "../../../corpus/store/lance-store.ts";

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

describe("RowBatchBuilder", () => {
  it("gives back every value, nulls and multi-byte UTF-8 included, through an Arrow table of the records schema", async () => {
    const rows = [
      row({
        rowKey: 2 ** 24 + 7,
        fileIndex: 1,
        pmid: "123",
        version: 2,
        doiKey: "10.1/x",
        titleKey: "00ff00ff00ff00ff",
        kwEmpty: 1,
        kwOverlong: 2,
        kwNonAscii: 3,
        kwDuplicate: 4,
        title: "Ünïcode — “quotes” 🧬",
        year: 2016,
        record: '{"t":"Ω≈ç√"}',
      }),
      row({ rowKey: 2 ** 24 + 8, fileIndex: 1, pmid: "124", kind: "dropped", dropReason: "no-abstract" }),
      row({ rowKey: 2 ** 24 + 9, fileIndex: 1, pmid: "125", kind: "delete", sourceFile: "pubmed25n1290.xml.gz" }),
    ];
    // Capacity 3 and a tiny initial byte buffer force the growth path.
    const b = new RowBatchBuilder(3);
    for (const r of rows) b.push(r);
    expect(() => b.push(rows[0])).toThrow(/full \(3 rows\)/);
    expect(b.textBytes).toBe(Buffer.byteLength('{"t":"Ω≈ç√"}'));
    const table = b.finish(loadArrow(), await recordsSchema());
    expect(table.numRows).toBe(3);
    const back = table.toArray().map((r) => ({ ...(r.toJSON() as Record<string, unknown>) }));
    expect(back).toEqual(rows);

    // Reset and reused: only the new rows come back (validity bits cleared).
    b.reset();
    b.push(rows[1]);
    const again = b.finish(loadArrow(), await recordsSchema());
    expect(again.toArray().map((r) => ({ ...(r.toJSON() as Record<string, unknown>) }))).toEqual([rows[1]]);
  });

  it("hands a batch to another thread as transferred copies: the builder is reusable at once and the writer's table has the rows", async () => {
    const rows = [
      row({ rowKey: 5, pmid: "9", doiKey: "10.2/ü", titleKey: "0123456789abcdef", title: "Tïtle", year: 1999, record: '{"a":"β"}' }),
      row({ rowKey: 6, pmid: "10", kind: "dropped", dropReason: "no-abstract" }),
    ];
    const b = new RowBatchBuilder(4);
    for (const r of rows) b.push(r);
    const cols = b.columns(true);
    const transfer = batchTransferList(cols);
    // Every column owns its own buffer (none shared, e.g. with Buffer's pool).
    expect(new Set(transfer).size).toBe(transfer.length);
    b.reset();
    b.push(row({ rowKey: 7, pmid: "11", record: "overwritten" }));
    const received = structuredClone(cols, { transfer });
    expect(cols.rowKey.byteLength).toBe(0); // detached in the sender
    const table = batchColumnsToTable(loadArrow(), await recordsSchema(), received);
    expect(table.toArray().map((r) => ({ ...(r.toJSON() as Record<string, unknown>) }))).toEqual(rows);
  });
});
