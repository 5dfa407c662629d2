import { describe, expect, it } from "vitest";
import { Bm25ParamsSchema } from "../../retrieval/bm25/params.ts";
import { parseBm25Params } from "../../retrieval/bm25/params-core.ts";

/** Inputs both checks see: valid ones with and without defaults, and every kind of bad value. */
const INPUTS: unknown[] = [
  {},
  { k1: 1.2 },
  { k1: 0, b: 0 },
  { k1: 3, b: 1, fieldWeights: { title: 2 } },
  { fieldWeights: { title: 0.5, text: 3 } },
  { fieldWeights: {} },
  { k1: -0.1 },
  { k1: Number.NaN },
  { k1: Number.POSITIVE_INFINITY },
  { k1: "1.5" },
  { b: 1.0001 },
  { b: -1e-9 },
  { fieldWeights: { title: 0 } },
  { fieldWeights: { text: -1 } },
  { fieldWeights: { title: 1, abstract: 1 } },
  { fieldWeights: null },
  { fieldWeights: [1, 2] },
  { k3: 1 },
  null,
  [1.5, 0.75],
  "k1=1.5",
];

describe("parseBm25Params (zod-free) agrees with Bm25ParamsSchema", () => {
  it("fills the defaults k1 1.5, b 0.75, weights 1/1", () => {
    expect(parseBm25Params()).toEqual({ k1: 1.5, b: 0.75, fieldWeights: { title: 1, text: 1 } });
    expect(parseBm25Params({ fieldWeights: { title: 2 } })).toEqual({ k1: 1.5, b: 0.75, fieldWeights: { title: 2, text: 1 } });
  });

  it("accepts and rejects the same inputs, with the same values", () => {
    let accepted = 0;
    for (const input of INPUTS) {
      const z = Bm25ParamsSchema.safeParse(input);
      let mine: unknown = null;
      let error: unknown = null;
      try {
        mine = parseBm25Params(input);
      } catch (e) {
        error = e;
      }
      expect({ input, ok: error === null }).toEqual({ input, ok: z.success });
      if (z.success) {
        accepted++;
        expect(mine).toEqual(z.data);
      }
    }
    expect(accepted).toBe(6);
  });

  it("names the offending field", () => {
    expect(() => parseBm25Params({ b: 2 })).toThrow(/\bb must be a number in \[0, 1\], got 2/);
    expect(() => parseBm25Params({ fieldWeights: { title: 1, abstract: 1 } })).toThrow(/unknown key "abstract"/);
  });
});
