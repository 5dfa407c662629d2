/**
 * Index-build time limit of the LanceDB engines (retrieval/lance-env.ts): the default grows with
 * the rows indexed (max(10 min, 3.6 ms × rows)), `MEDSYNTH_LANCE_INDEX_TIMEOUT_S` overrides it,
 * and a malformed value is an error rather than "no limit" (a hang must stay an error).
 */
import { describe, expect, it } from "vitest";
import { LANCE_INDEX_TIMEOUT_ENV, lanceIndexTimeoutMs } from "../../retrieval/lance-env.ts";
import { indexTimeoutFor } from "../../retrieval/lance/disk-engines.ts";

describe("LanceDB index-build time limit", () => {
  it("default: 10 min floor, then 3.6 ms per row (1 M rows → 60 min, 5 M → 5 h)", () => {
    expect(LANCE_INDEX_TIMEOUT_ENV).toBe("MEDSYNTH_LANCE_INDEX_TIMEOUT_S");
    expect(lanceIndexTimeoutMs(0, {})).toBe(600_000);
    expect(lanceIndexTimeoutMs(100_000, {})).toBe(600_000); // 360 s < floor
    expect(lanceIndexTimeoutMs(166_667, {})).toBe(600_002); // 600,001.2 ms rounded up (float: 600,001.2000000001)
    expect(lanceIndexTimeoutMs(250_000, {})).toBe(900_000);
    expect(lanceIndexTimeoutMs(1_000_000, {})).toBe(3_600_000);
    expect(lanceIndexTimeoutMs(5_000_000, {})).toBe(18_000_000);
  });

  it("MEDSYNTH_LANCE_INDEX_TIMEOUT_S (seconds) overrides the default whatever the size; blank is unset", () => {
    expect(lanceIndexTimeoutMs(1_000_000, { MEDSYNTH_LANCE_INDEX_TIMEOUT_S: "90" })).toBe(90_000);
    expect(lanceIndexTimeoutMs(10, { MEDSYNTH_LANCE_INDEX_TIMEOUT_S: "7200" })).toBe(7_200_000);
    expect(lanceIndexTimeoutMs(10, { MEDSYNTH_LANCE_INDEX_TIMEOUT_S: "1.5" })).toBe(1_500);
    expect(lanceIndexTimeoutMs(1_000_000, { MEDSYNTH_LANCE_INDEX_TIMEOUT_S: " " })).toBe(3_600_000);
  });

  it("a value that is not a positive number of seconds is an error naming the variable", () => {
    for (const v of ["abc", "0", "-5", "Infinity", "10m"]) {
      expect(() => lanceIndexTimeoutMs(10, { MEDSYNTH_LANCE_INDEX_TIMEOUT_S: v })).toThrow(/MEDSYNTH_LANCE_INDEX_TIMEOUT_S=.*positive number of seconds/);
    }
  });

  it("the on-disk engines' default reads the process environment", () => {
    const old = process.env.MEDSYNTH_LANCE_INDEX_TIMEOUT_S;
    try {
      delete process.env.MEDSYNTH_LANCE_INDEX_TIMEOUT_S;
      expect(indexTimeoutFor(1_000_000)).toBe(3_600_000);
      process.env.MEDSYNTH_LANCE_INDEX_TIMEOUT_S = "42";
      expect(indexTimeoutFor(1_000_000)).toBe(42_000);
    } finally {
      if (old === undefined) delete process.env.MEDSYNTH_LANCE_INDEX_TIMEOUT_S;
      else process.env.MEDSYNTH_LANCE_INDEX_TIMEOUT_S = old;
    }
  });
});
