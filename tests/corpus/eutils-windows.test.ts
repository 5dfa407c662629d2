/**
 * E-utilities past NCBI's 10,000-record cap: a 25,000-result search against a fake that enforces
 * the cap is split into date windows, and every record comes back exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEutilsClient } from "../../corpus/eutils.ts";
import { createWindowSampler, dayNumber, emptyWindowStats, fetchAllRecords, formatDay, searchWindows } from "../../corpus/eutils-windows.ts";
import { startFakeEutils, type FakeEutilsServer, type FakePubmedEntry } from "../helpers/fake-eutils-server.ts";

/** n records spread evenly over the days of 2020 (PMIDs 1000000 + i). */
function spreadOver2020(n: number): FakePubmedEntry[] {
  const first = dayNumber("2020/01/01");
  return Array.from({ length: n }, (_, i) => ({
    pmid: String(1_000_000 + i),
    date: formatDay(first + Math.floor((i * 366) / n)),
    title: `Record ${i}`,
    abstract: i % 10 === 0 ? [] : [{ text: `Abstract of record ${i}.` }],
  }));
}

describe("date helpers", () => {
  it("day numbers round-trip and a bare year or month spans its days", () => {
    expect(dayNumber("1970/01/02")).toBe(1);
    expect(formatDay(dayNumber("2024/02/29"))).toBe("2024/02/29");
    expect(dayNumber("2020", true) - dayNumber("2020") + 1).toBe(366);
    expect(formatDay(dayNumber("2021/02", true))).toBe("2021/02/28");
    expect(() => dayNumber("20/1/1")).toThrow(/YYYY\/MM\/DD/);
  });
});

describe("searches past the 10,000 cap (fake E-utilities enforcing it)", () => {
  const entries = spreadOver2020(25_000);
  let fake: FakeEutilsServer;
  beforeAll(async () => {
    fake = await startFakeEutils(entries);
  });
  afterAll(() => fake.close());

  it("the fake serves only the first 10,000 of one result set (what the client must work around)", async () => {
    const client = createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10 });
    const r = await client.esearch({ term: "all", minDate: "2020/01/01", maxDate: "2020/12/31", retstart: 9_990, retmax: 100 });
    expect(r.count).toBe(25_000);
    expect(r.ids).toHaveLength(10);
    await expect(client.esearch({ term: "all", minDate: "2020/01/01", maxDate: "2020/12/31", retstart: 10_000, retmax: 10 })).rejects.toThrow(/only retrieve the first 10000/);
  });

  it("splits 25,000 results into windows of ≤ 10,000 that add up to the count", async () => {
    const client = createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10 });
    const stats = emptyWindowStats();
    const windows = await searchWindows(client, { term: "all" }, { minDate: "2020/01/01", maxDate: "2020/12/31" }, { stats });
    // Days 0–365 of 2020 halved at floor((lo+hi)/2): [0,182] [183,365], then [0,91] [92,182] [183,274] [275,365].
    expect(windows.map((w) => [w.minDate, w.maxDate])).toEqual([
      ["2020/01/01", "2020/04/01"],
      ["2020/04/02", "2020/07/01"],
      ["2020/07/02", "2020/10/01"],
      ["2020/10/02", "2020/12/31"],
    ]);
    expect(windows.every((w) => w.count <= 10_000)).toBe(true);
    expect(windows.reduce((a, w) => a + w.count, 0)).toBe(25_000);
    expect(stats.countQueries).toBe(1 + 2 + 4);
    expect(stats.overflow).toEqual([]);
  });

  it("fetchAllRecords returns all 25,000 records, none lost or duplicated", async () => {
    fake.requests.length = 0;
    const client = createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10, batchSize: 5_000 });
    const stats = emptyWindowStats();
    const pmids: string[] = [];
    for await (const r of fetchAllRecords(client, { term: "all" }, { minDate: "2020/01/01", maxDate: "2020/12/31" }, { stats })) pmids.push(r.pmid);
    expect(pmids).toHaveLength(25_000);
    expect(new Set(pmids).size).toBe(25_000);
    expect(new Set(pmids)).toEqual(new Set(entries.map((e) => e.pmid)));
    expect(stats.windows).toBe(4);
    expect(stats.duplicates).toBe(0);
    // No request ever asked past the cap.
    expect(fake.requests.filter((q) => Number(q.params.retstart ?? 0) >= 10_000)).toEqual([]);
  }, 60_000);

  it("stops at max records, across windows", async () => {
    const small = await startFakeEutils(spreadOver2020(300), { cap: 100 });
    try {
      const client = createEutilsClient({ baseUrl: small.url, requestsPerSecond: 10 });
      const pmids: string[] = [];
      for await (const r of fetchAllRecords(client, { term: "all" }, { minDate: "2020/01/01", maxDate: "2020/12/31" }, { max: 150, cap: 100 })) pmids.push(r.pmid);
      expect(pmids).toHaveLength(150);
      expect(new Set(pmids).size).toBe(150);
      // Windows come in date order and PMIDs grow with the date: the 150 are the oldest 150.
      expect(new Set(pmids)).toEqual(new Set(Array.from({ length: 150 }, (_, i) => String(1_000_000 + i))));
    } finally {
      await small.close();
    }
  });

  it("a sampler maps positions across windows to the same ids a full listing has at those positions", async () => {
    const client = createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10 });
    // hasabstract: 22,500 of the 25,000 (every 10th record has none).
    const sampler = await createWindowSampler(client, { term: "hasabstract" }, { minDate: "2020/01/01", maxDate: "2020/12/31" });
    expect(sampler.total).toBe(22_500);
    const windows = await searchWindows(client, { term: "hasabstract" }, { minDate: "2020/01/01", maxDate: "2020/12/31" });
    // The full listing, window by window (newest PMID first within a window).
    const listing: string[] = [];
    for (const w of windows) listing.push(...(await client.esearch({ term: "hasabstract", minDate: w.minDate, maxDate: w.maxDate, retmax: w.count })).ids);
    expect(listing).toHaveLength(22_500);
    const positions = [0, 1, 9_999, 10_000, 15_000, 22_499, 7];
    const got = await sampler.idsAt(positions);
    expect(positions.map((p) => got.get(p))).toEqual(positions.map((p) => listing[p]));
  }, 60_000);

  it("a single day over the cap is reported as overflow, not split forever", async () => {
    const oneDay = await startFakeEutils(
      Array.from({ length: 30 }, (_, i) => ({ pmid: String(500 + i), date: "2021/03/04", title: `t${i}`, abstract: [{ text: "x" }] })),
      { cap: 10 },
    );
    try {
      const client = createEutilsClient({ baseUrl: oneDay.url, requestsPerSecond: 10 });
      const stats = emptyWindowStats();
      const w = await searchWindows(client, { term: "all" }, { minDate: "2021/03/01", maxDate: "2021/03/08" }, { cap: 10, stats });
      expect(w).toEqual([{ minDate: "2021/03/04", maxDate: "2021/03/04", count: 30 }]);
      expect(stats.overflow).toEqual(w);
    } finally {
      await oneDay.close();
    }
  });
});
