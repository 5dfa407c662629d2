/**
 * The WebAssembly accumulation kernel of the quantised TAAT BM25 (retrieval/bm25/taat-kernel.ts):
 * the committed bytes are what scripts/build-taat-kernel.mjs compiles from taat-kernel.wat; `add`
 * and `addTimes` add exactly the hand-computed amounts to exactly the documents named, only over
 * the range asked (four-at-a-time steps and the one-at-a-time tail); no kernel (JavaScript path)
 * when the postings do not fit in 65,535 pages or WebAssembly is missing.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { compileTaatKernel, kernelModule } from "../../scripts/build-taat-kernel.mjs";
import { createTaatKernel } from "../../retrieval/bm25/taat-kernel.ts";

const pack = (offset: number, q: number) => (offset << 16) | q;

describe("TAAT WebAssembly kernel", () => {
  const realWasm = (globalThis as { WebAssembly?: unknown }).WebAssembly;
  afterEach(() => {
    (globalThis as { WebAssembly?: unknown }).WebAssembly = realWasm;
  });

  it("the committed bytes are the compiled taat-kernel.wat", async () => {
    const committed = readFileSync(new URL("../../retrieval/bm25/taat-kernel-bytes.ts", import.meta.url), "utf8");
    expect(committed).toBe(kernelModule(await compileTaatKernel()));
  });

  it("add: acc[offset] += q over [from, stop) only, 4-at-a-time steps and the tail", () => {
    const k = createTaatKernel(11, 8)!;
    expect(k).not.toBeNull();
    // offsets 0..7 (window of 8), levels as written; postings 0 and 10 lie outside the range.
    const posts = [pack(7, 1000), pack(1, 3), pack(1, 4), pack(5, 65535), pack(0, 7), pack(2, 9), pack(7, 11), pack(3, 2), pack(6, 1), pack(1, 40), pack(4, 500)];
    k.packed.set(posts);
    k.add(1, 10);
    expect(Array.from(k.acc)).toEqual([7, 3 + 4 + 40, 9, 2, 0, 65535, 1, 11]);
    // The tail alone (fewer than four postings).
    k.acc.fill(0);
    k.add(8, 10);
    expect(Array.from(k.acc)).toEqual([0, 40, 0, 0, 0, 0, 1, 0]);
  });

  it("addTimes: acc[offset] += c·q (a term counted c times), on top of what is there", () => {
    const k = createTaatKernel(6, 4)!;
    k.packed.set([pack(0, 5), pack(3, 65535), pack(0, 1), pack(2, 10), pack(1, 7), pack(3, 2)]);
    k.acc.set([100, 0, 1, 0]);
    k.addTimes(0, 6, 3);
    expect(Array.from(k.acc)).toEqual([100 + 15 + 3, 21, 1 + 30, 3 * 65535 + 6]);
  });

  it("gives no kernel (the JavaScript path) beyond 65,535 pages or without WebAssembly, and says so once", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(`${w.code}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      expect(createTaatKernel(2 ** 30, 65_536)).toBeNull();
      (globalThis as { WebAssembly?: unknown }).WebAssembly = undefined;
      expect(createTaatKernel(10, 8)).toBeNull();
      await new Promise((done) => setImmediate(done)); // warnings arrive on a later tick
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([expect.stringMatching(/^MEDSYNTH_TAAT_JS: .*1073741824 postings do not fit in WebAssembly's 4 GiB.*same results/)]);
  });
});
