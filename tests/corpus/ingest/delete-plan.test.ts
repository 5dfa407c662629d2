/**
 * Finalisation's deletes stay within their memory budget: LanceDB copies a delete's `IN (…)`
 * filter into every fragment's scan, so `deletePlan` bounds list length × fragments by
 * DELETE_FILTER_BUDGET and compacts first when the lists would be many (values by hand).
 */
import { describe, expect, it } from "vitest";
import { DELETE_CALLS_BEFORE_COMPACTION, DELETE_FILTER_BUDGET, deletePlan } from "../../../corpus/ingest/finalize.ts";

describe("deletePlan", () => {
  it("the budget and the call limit are the documented 600,000 key×fragments and 8 calls", () => {
    expect(DELETE_FILTER_BUDGET).toBe(600_000);
    expect(DELETE_CALLS_BEFORE_COMPACTION).toBe(8);
  });
  it("5.7 M synthetic records after ingest (5,700 deleted, ~2,800 fragments): compact first, then one list", () => {
    expect(deletePlan(5700, 2800)).toEqual({ compactFirst: true, chunk: 214 }); // 600,000 / 2,800 = 214.3
    expect(deletePlan(5700, 6)).toEqual({ compactFirst: false, chunk: 20_000 }); // after compaction: the cap
  });
  it("few losers: lists within the budget, no compaction; none or a small table: one list of the cap", () => {
    expect(deletePlan(1000, 2800)).toEqual({ compactFirst: false, chunk: 214 }); // 5 calls ≤ 8
    expect(deletePlan(1712, 2800)).toEqual({ compactFirst: false, chunk: 214 }); // exactly 8 calls
    expect(deletePlan(1713, 2800)).toEqual({ compactFirst: true, chunk: 214 });
    expect(deletePlan(0, 10)).toEqual({ compactFirst: false, chunk: 20_000 });
    expect(deletePlan(50, 0)).toEqual({ compactFirst: false, chunk: 20_000 });
  });
  it("more fragments than the budget: lists of one key, compaction when more than 8 losers", () => {
    expect(deletePlan(8, 1_000_000)).toEqual({ compactFirst: false, chunk: 1 });
    expect(deletePlan(9, 1_000_000)).toEqual({ compactFirst: true, chunk: 1 });
  });
});
