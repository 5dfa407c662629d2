/** The free-disk check before finalisation's compaction (corpus/ingest/disk-check.ts): thresholds and sizes computed by hand. */
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPACTION_DISK_SLACK, compactionDiskWarning, storeCompactionDiskWarning, tableDataBytes } from "../../../corpus/ingest/disk-check.ts";

const root = mkdtempSync(join(tmpdir(), "medsynth-disk-check-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("compaction disk check", () => {
  it("warns exactly when the free space cannot hold the table's data again plus the slack, naming the folder and both sizes", () => {
    const data = 35.2e9;
    expect(compactionDiskWarning(data, data + COMPACTION_DISK_SLACK, "/s")).toBeNull();
    const w = compactionDiskWarning(data, data + COMPACTION_DISK_SLACK - 1, "/data/store");
    expect(w).toContain("/data/store");
    expect(w).toContain("up to 35.2 GB more");
    expect(w).toContain("only 35.5 GB are free"); // 35.2e9 + 256 MiB − 1 = 35.468… GB
    expect(compactionDiskWarning(35.2e9, 20.05e9, "/s")).toContain("only 20.1 GB are free");
  });

  it("sums the data files of a table folder; 0 without one", () => {
    const t = join(root, "records.lance");
    mkdirSync(join(t, "data"), { recursive: true });
    writeFileSync(join(t, "data", "a.lance"), Buffer.alloc(100));
    writeFileSync(join(t, "data", "b.lance"), Buffer.alloc(250));
    writeFileSync(join(t, "not-data.txt"), Buffer.alloc(1000));
    expect(tableDataBytes(t)).toBe(350);
    expect(tableDataBytes(join(root, "missing.lance"))).toBe(0);
  });

  it("checks local stores only: none for object storage, a missing table, or a small table on a roomy disk", () => {
    expect(storeCompactionDiskWarning("s3://bucket/store")).toBeNull();
    expect(storeCompactionDiskWarning(join(root, "no-store"))).toBeNull();
    expect(storeCompactionDiskWarning(root)).toBeNull(); // 350 bytes of data
  });
});
