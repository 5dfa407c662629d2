import { createReadStream, rmSync } from "node:fs";
import { createGunzip } from "node:zlib";
import { parsePubmedFile } from "../corpus/pubmed-xml.ts";
import { recordToRow } from "../corpus/ingest/rows.ts";
import { RowBatchBuilder } from "../corpus/ingest/arrow-batch.ts";
import { loadArrow } from "../corpus/store/lance-store.ts";
const arrow = loadArrow();
import { CleanOptionsSchema } from "../corpus/clean.ts";
import { sha256File } from "../corpus/ingest/ingest-file.ts";
import { connectStore, loadLancedb, recordsSchema } from "../corpus/store/lance-store.ts";
const file = process.argv[2];
const phases = process.argv.slice(3);
const clean = CleanOptionsSchema.parse({});
const { makeArrowTable } = await loadLancedb();
const schema = await recordsSchema();
rmSync("/tmp/hing/ph", { recursive: true, force: true });
const db = await connectStore({ uri: "/tmp/hing/ph" });
const table = await db.createEmptyTable("records", schema);
async function cpu(name: string, f: () => Promise<unknown>) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  const r = await f();
  const c = process.cpuUsage(c0);
  console.log(`${name}: cpu ${((c.user + c.system) / 1e6).toFixed(2)} s (user ${(c.user / 1e6).toFixed(2)}) wall ${((performance.now() - t0) / 1000).toFixed(2)} s ${r ?? ""}`);
}
for (const ph of phases) {
  if (ph === "gunzip") await cpu(ph, async () => { let n = 0; for await (const c of createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(createGunzip({ chunkSize: 256 * 1024 }))) n += (c as Buffer).length; return n; });
  if (ph === "sha") await cpu(ph, () => sha256File(file));
  if (ph === "parse") await cpu(ph, async () => { let n = 0; for await (const _r of parsePubmedFile(file)) n++; return n; });
  if (ph === "rows") await cpu(ph, async () => { let n = 0, ch = 0; for await (const r of parsePubmedFile(file)) { const row = recordToRow(r, { fileIndex: 0, seq: n++, sourceFile: "x" }, clean); ch += row.record.length; } return ch; });
  if (ph === "arrow" || ph === "lance") await cpu(ph, async () => { let n = 0; let batch: any[] = []; const flush = async () => { const t = makeArrowTable(batch, { schema }); batch = []; if (ph === "lance") await table.add(t); };
    for await (const r of parsePubmedFile(file)) { batch.push(recordToRow(r, { fileIndex: 0, seq: n++, sourceFile: "x" }, clean)); if (batch.length >= 5000) await flush(); } await flush(); return n; });
}
for (const ph of phases) {
  if (ph === "builder" || ph === "blance") await cpu(ph, async () => { let n = 0; let b = new RowBatchBuilder(5000); const flush = async () => { const t = b.finish(arrow, schema); b = new RowBatchBuilder(5000); if (ph === "blance") await table.add(t); };
    for await (const r of parsePubmedFile(file)) { b.push(recordToRow(r, { fileIndex: 0, seq: n++, sourceFile: "x" }, clean)); if (b.length >= 5000) await flush(); } await flush(); return n; });
}
