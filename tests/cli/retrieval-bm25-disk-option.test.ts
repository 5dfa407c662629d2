/**
 * `--bm25-engine disk` selects medsynth's on-disk BM25 engine: the retriever config gets
 * `engine: "disk"` (not a `bm25.engine`), and `fast` / `wink` keep mapping to `bm25.engine`.
 */
import { describe, expect, it } from "vitest";
import { retrieverConfig } from "../../experiments/cli/retrieval-commands.ts";

describe("--bm25-engine", () => {
  it("disk → retriever engine disk; fast/wink → bm25.engine", () => {
    const disk = retrieverConfig({ bm25Engine: "disk" }, "bm25");
    expect(disk.engine).toBe("disk");
    expect(disk.bm25).toBeUndefined();
    expect(retrieverConfig({ bm25Engine: "wink" }, "bm25")).toMatchObject({ bm25: { engine: "wink" } });
    expect(retrieverConfig({ bm25Engine: "fast" }, "bm25").engine).toBeUndefined();
  });
  it("an unknown engine is an error naming the option", () => {
    expect(() => retrieverConfig({ bm25Engine: "lucene" }, "bm25")).toThrow(/--bm25-engine/);
  });
});
