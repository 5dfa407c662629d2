/**
 * Curated conclusion-label variants of structured abstracts and normalised label matching.
 *
 * MedConclusion §3.1.1 identifies conclusion sections "by matching normalized labels against a
 * curated set of conclusion variants" (Appendix G; the table itself is not in our copy of the
 * paper, so this list is our own, built from labels NLM maps to the CONCLUSIONS category).
 * A segment is a conclusion when its NLM category is CONCLUSIONS or its normalised label is in
 * {@link CONCLUSION_LABEL_VARIANTS}.
 */
import type { AbstractSegment } from "./types.ts";

/**
 * Normalise an abstract label for matching: Unicode NFKD without diacritics, lower case, "(s)"
 * → "s", "&" → "and", every run of non-alphanumerics → one space, trimmed.
 * @example normalizeLabel(" CONCLUSION(S): ") === "conclusions"
 * @example normalizeLabel("Conclusions & Relevance") === "conclusions and relevance"
 */
export function normalizeLabel(label: string): string {
  return label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\(s\)/g, "s")
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** Normalised conclusion-label variants (see module comment). Matching is exact on {@link normalizeLabel}. */
export const CONCLUSION_LABEL_VARIANTS: ReadonlySet<string> = new Set([
  "conclusion",
  "conclusions",
  "conclusion and relevance",
  "conclusions and relevance",
  "conclusion and implications",
  "conclusions and implications",
  "conclusions and clinical relevance",
  "conclusion and clinical relevance",
  "conclusions and clinical implications",
  "conclusion and clinical implications",
  "conclusions and recommendations",
  "conclusion and recommendations",
  "conclusions and significance",
  "conclusion and significance",
  "conclusions and future directions",
  "conclusions and perspectives",
  "conclusions and implications for practice",
  "conclusions and implications for nursing practice",
  "summary and conclusion",
  "summary and conclusions",
  "discussion and conclusion",
  "discussion and conclusions",
  "interpretation and conclusions",
  "interpretation and conclusion",
  "results and conclusions",
  "findings and conclusions",
  "authors conclusion",
  "authors conclusions",
  "author s conclusions",
  "authors conclusions and implications",
  "main conclusion",
  "main conclusions",
  "general conclusion",
  "general conclusions",
  "overall conclusion",
  "conclusions relevance",
  "conclusion relevance",
  "concluding remarks",
  "concluding statement",
  "interpretation",
  "clinical implications",
  "implications for practice",
  "implications for clinical practice",
  "implications for nursing practice",
  "implications",
  "clinical relevance",
  "clinical significance",
  "take home message",
  "take home messages",
  "key conclusion",
  "key conclusions",
]);

/**
 * Whether a label (raw, any case/punctuation) is a conclusion variant.
 * @param label - the author label, or null.
 */
export function isConclusionLabel(label: string | null): boolean {
  return label !== null && CONCLUSION_LABEL_VARIANTS.has(normalizeLabel(label));
}

/**
 * Whether an abstract segment is a conclusion: NLM category CONCLUSIONS, or a conclusion label.
 * @param segment - one abstract segment.
 */
export function isConclusionSegment(segment: AbstractSegment): boolean {
  return (segment.nlmCategory !== null && segment.nlmCategory.toUpperCase() === "CONCLUSIONS") || isConclusionLabel(segment.label);
}
