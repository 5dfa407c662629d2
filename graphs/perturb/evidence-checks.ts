/**
 * Rule-based checks of an evidence set, the offline half of the critic workflow: studies that
 * contradict each other (near-identical abstracts whose findings differ in polarity), numbers that
 * contradict themselves (a ratio estimate outside its own 95% CI; "significant" p < 0.05 with a
 * ratio CI spanning 1, or p ≥ 0.05 with a CI excluding 1), retracted studies, and implausible
 * numbers (percentages over 100). Each finding names the passages and what is wrong.
 */
import type { PerturbedPassage } from "./types.ts";
import { RETRACTED_PREFIX } from "./retracted.ts";

/** One problem found in the evidence. */
export interface EvidenceFinding {
  kind: "conflict" | "inconsistent-numbers" | "retracted" | "implausible";
  ids: string[];
  detail: string;
}

const STOP = new Set("the a an of and or in on to with for was were is are be by at from as that this than not no did does".split(" "));
const words = (t: string) =>
  new Set(
    t
      .toLowerCase()
      .match(/[a-z][a-z0-9-]+/g)
      ?.filter((w) => !STOP.has(w)) ?? [],
  );
const NEGATIVE = /\b(?:no|not|did not|does not|without|failed to)\s+(?:\w+\s+){0,3}(?:significant|differ|reduc|increas|improv|associat|effect)|\bnon-?significant|\bno (?:\w+ )?difference/i;

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter);
}

const RATIO_CI =
  /\b(?:a?(?:OR|RR|HR|IRR)|[Oo]dds ratio|[Rr]isk ratio|[Hh]azard ratio|[Rr]elative risk|[Rr]ate ratio)\b[^0-9]{0,15}?(\d+(?:\.\d+)?)(?![\d.])\s*[([,;]?\s*(?:95\s*%\s*(?:CI|confidence interval)\s*[:,=]?\s*)?(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)(?:[^.]{0,40}?\b[Pp]\s*([<=≤])\s*(0?\.\d+))?/g;

/** Numeric self-contradictions in one text. */
export function numericInconsistencies(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(RATIO_CI)) {
    const [est, lo, hi] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!(lo <= hi)) continue;
    if (est < lo || est > hi) out.push(`estimate ${m[1]} lies outside its CI ${m[2]}–${m[3]}`);
    if (m[5] !== undefined) {
      const p = Number(m[5]);
      const significant = m[4] === "=" ? p < 0.05 : p <= 0.05;
      const spans = lo <= 1 && hi >= 1;
      if (significant && spans) out.push(`p ${m[4]} ${m[5]} but the CI ${m[2]}–${m[3]} includes 1`);
      if (!significant && !spans) out.push(`p ${m[4]} ${m[5]} but the CI ${m[2]}–${m[3]} excludes 1`);
    }
  }
  for (const m of text.matchAll(/(?<![\d.])(\d{3,}(?:\.\d+)?)\s?%/g)) if (Number(m[1]) > 100) out.push(`percentage ${m[1]}% over 100`);
  return out;
}

/**
 * Check an evidence set.
 * @param overlap Jaccard overlap of content words above which two abstracts count as reports of
 *   the same study (default 0.6)
 * @returns findings, in passage order
 */
export function checkEvidence(evidence: readonly PerturbedPassage[], overlap = 0.6): EvidenceFinding[] {
  const findings: EvidenceFinding[] = [];
  const bags = evidence.map((p) => words(`${p.title} ${p.text}`));
  for (let i = 0; i < evidence.length; i++) {
    for (let j = i + 1; j < evidence.length; j++) {
      if (jaccard(bags[i], bags[j]) < overlap) continue;
      if (NEGATIVE.test(evidence[i].text) !== NEGATIVE.test(evidence[j].text)) {
        findings.push({ kind: "conflict", ids: [evidence[i].id, evidence[j].id], detail: "near-identical abstracts report opposite findings" });
      }
    }
  }
  for (const p of evidence) {
    if (p.retracted || p.title.startsWith(RETRACTED_PREFIX)) findings.push({ kind: "retracted", ids: [p.id], detail: "retracted publication" });
    const bad = numericInconsistencies(p.text);
    const implausible = bad.filter((b) => b.startsWith("percentage"));
    const inconsistent = bad.filter((b) => !b.startsWith("percentage"));
    if (inconsistent.length) findings.push({ kind: "inconsistent-numbers", ids: [p.id], detail: inconsistent.join("; ") });
    if (implausible.length) findings.push({ kind: "implausible", ids: [p.id], detail: implausible.join("; ") });
  }
  return findings;
}
