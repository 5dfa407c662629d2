import { describe, expect, it } from "vitest";
import { packStrings } from "../../retrieval/bm25/array-files.ts";
import { TermTable } from "../../retrieval/bm25/term-table.ts";

const table = (terms: string[]) => {
  const { bytes, ends } = packStrings(terms);
  return new TermTable(bytes, ends);
};

describe("TermTable (term → id over a packed UTF-8 string table)", () => {
  const terms = ["trial", "aspirin", "é", "naïv", "中文", "𝛼blocker", "a", "trials", "ß"];
  const t = table(terms);

  it("finds every term at its position, including 2-, 3- and 4-byte UTF-8 (astral = surrogate pair)", () => {
    expect(t.size).toBe(9);
    expect(terms.map((x) => t.get(x))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("misses prefixes, extensions, case variants, lone halves of a surrogate pair and the empty string", () => {
    for (const x of ["tria", "trialss", "Trial", "e", "naiv", "中", "中文字", "\ud835", "𝛼", "blocker", "", "ss", "b"]) expect(t.get(x)).toBe(-1);
  });

  it("gives the first id of a repeated term; an empty table finds nothing", () => {
    expect(table(["x", "y", "x"]).get("x")).toBe(0);
    expect(table(["x", "y", "x"]).get("y")).toBe(1);
    expect(table([]).get("x")).toBe(-1);
  });

  it("stays exact over thousands of terms (collisions probed, not merged)", () => {
    const many = Array.from({ length: 5000 }, (_, i) => `t${i.toString(36)}é${i % 7}`);
    const big = table(many);
    expect(many.every((x, i) => big.get(x) === i)).toBe(true);
    expect(big.get("t0é1")).toBe(-1);
    expect(big.get(many[4999] + "x")).toBe(-1);
  });
});
