import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "../../models/abort-fanout.ts";

describe("linkedSignal", () => {
  it("links many children through one listener on the parent; an abort reaches the linked ones with its reason", () => {
    const parent = new AbortController();
    const kids = Array.from({ length: 1000 }, () => linkedSignal(parent.signal));
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    kids[3].release();
    kids[3].release(); // idempotent
    const reason = new Error("SIGINT");
    parent.abort(reason);
    expect(kids.filter((k) => k.signal.aborted)).toHaveLength(999);
    expect(kids[3].signal.aborted).toBe(false);
    expect(kids[0].signal.reason).toBe(reason);
  });

  it("an already aborted parent gives an aborted child; no parent gives a child that never aborts", () => {
    const parent = new AbortController();
    parent.abort("stop");
    expect(linkedSignal(parent.signal).signal.reason).toBe("stop");
    expect(linkedSignal(undefined).signal.aborted).toBe(false);
  });
});
