/** NLTK PorterStemmer (NLTK_EXTENSIONS) port: known outputs from NLTK 3.8 and the paper's examples. */
import { describe, expect, it } from "vitest";
import { createMemoStemmer, porterStem } from "../../../judges/metrics/porter-nltk.ts";

describe("porterStem", () => {
  it.each([
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["ties", "tie"], // NLTK extension: 4-letter -ies
    ["dies", "die"],
    ["died", "die"],
    ["spied", "spi"],
    ["agreed", "agre"],
    ["plastered", "plaster"],
    ["motoring", "motor"],
    ["hopping", "hop"],
    ["filing", "file"],
    ["happy", "happi"],
    ["enjoy", "enjoy"],
    ["relational", "relat"],
    ["generalization", "gener"],
    ["radically", "radic"],
    ["hopefulness", "hope"],
    ["dying", "die"], // irregular pool
    ["skies", "sky"],
    ["proceed", "proceed"],
    ["controlling", "control"],
    ["mitochondrial", "mitochondri"],
    ["dynamics", "dynam"],
    ["correlation", "correl"],
    ["developmental", "development"],
    ["knowledge", "knowledg"],
    ["this", "thi"],
    ["is", "is"],
  ])("%s → %s", (w, s) => expect(porterStem(w)).toBe(s));

  it("memoised stemmer returns the same stems", () => {
    const stem = createMemoStemmer(2);
    expect(["running", "running", "cats", "happily"].map(stem)).toEqual(["run", "run", "cat", "happili"]);
  });
});
