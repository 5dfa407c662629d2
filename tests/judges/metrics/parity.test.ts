/**
 * ROUGE (Google rouge-score 0.1.2) and BLEU (NLTK 3.8, treebank tokens, method1) against all 620
 * parity rows (tests/fixtures/parity: expected values; PubMedQA texts from the dataset registry), to
 * 1e-6; stemmed and treebank tokens exactly (compared as sha256 of their JSON).
 */
import { describe, expect, it } from "vitest";
import { loadParityRows, tokensSha256, type ParityRow } from "../../fixtures/parity/pairs.ts";
import { RougeScorer } from "../../../judges/metrics/rouge.ts";
import { sentenceBleu, treebankTokenize } from "../../../judges/metrics/bleu.ts";

const rows: ParityRow[] = await loadParityRows();

const TOL = 1e-6;

describe("ROUGE and BLEU parity (620 rows)", () => {
  it("fixture has 620 rows", () => expect(rows.length).toBe(620));

  it("stemmed rouge tokens equal rouge_score's on every row", () => {
    const s = new RougeScorer(["rouge1"], true);
    const mismatches = rows.filter(
      (r) => tokensSha256(s.tokenize(r.reference)) !== r.rouge_tokens_stemmed_sha256.reference || tokensSha256(s.tokenize(r.candidate)) !== r.rouge_tokens_stemmed_sha256.candidate,
    );
    expect(mismatches.map((r) => r.id)).toEqual([]);
  });

  it("ROUGE-1/2/L/Lsum P/R/F with stemming and ROUGE-1/L without, on every row", () => {
    const stem = new RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], true);
    const plain = new RougeScorer(["rouge1", "rougeL"], false);
    let checked = 0;
    const bad: string[] = [];
    for (const r of rows) {
      for (const [scorer, key] of [
        [stem, "use_stemmer_true"],
        [plain, "use_stemmer_false"],
      ] as const) {
        const got = scorer.score(r.reference, r.candidate);
        for (const [type, ref] of Object.entries(r.rouge[key])) {
          for (const f of ["precision", "recall", "fmeasure"] as const) {
            checked++;
            if (!(Math.abs(got[type][f] - ref[f]) <= TOL)) bad.push(`${r.id} ${key} ${type} ${f}: ${got[type][f]} vs ${ref[f]}`);
          }
        }
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBe(620 * (4 + 2) * 3);
  });

  it("treebank tokens, n-gram counts, brevity penalty and BLEU on every row", () => {
    const bad: string[] = [];
    for (const r of rows) {
      if (tokensSha256(treebankTokenize(r.reference.toLowerCase())) !== r.bleu_tokens_sha256.reference) bad.push(`${r.id} ref tokens`);
      if (tokensSha256(treebankTokenize(r.candidate.toLowerCase())) !== r.bleu_tokens_sha256.candidate) bad.push(`${r.id} cand tokens`);
      const b = sentenceBleu(r.reference, r.candidate);
      if (!(Math.abs(b.bleu - r.bleu) <= TOL)) bad.push(`${r.id} bleu ${b.bleu} vs ${r.bleu}`);
      if (b.hypLen !== r.bleu_details.hyp_len || b.refLen !== r.bleu_details.ref_len) bad.push(`${r.id} lengths`);
      if (!(Math.abs(b.brevityPenalty - r.bleu_details.brevity_penalty) <= TOL)) bad.push(`${r.id} bp`);
      r.bleu_details.modified_precisions.forEach((p, i) => {
        if (b.precisions[i].numerator !== p.numerator || b.precisions[i].denominator !== p.denominator) bad.push(`${r.id} p${p.n}`);
      });
    }
    expect(bad).toEqual([]);
  });

  it("edge cases: empty candidate → 0; identical → 1; 'Yes.' → sqrt(0.1)", () => {
    expect(sentenceBleu("The treatment reduced mortality.", "").bleu).toBe(0);
    expect(sentenceBleu("a b c d e", "a b c d e").bleu).toBeCloseTo(1, 12);
    expect(sentenceBleu("Yes.", "Yes.").bleu).toBeCloseTo(Math.sqrt(0.1), 12);
    const s = new RougeScorer(["rouge1", "rougeL", "rougeLsum"]);
    expect(s.score("x y", "")).toEqual({ rouge1: { precision: 0, recall: 0, fmeasure: 0 }, rougeL: { precision: 0, recall: 0, fmeasure: 0 }, rougeLsum: { precision: 0, recall: 0, fmeasure: 0 } });
  });
});
