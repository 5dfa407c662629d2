/**
 * Offline extractive baselines (ids `extractive:mmr`, `extractive:lead`). They build an answer only
 * from sentences copied verbatim from the evidence they are given — real, labelled baselines, not
 * stand-ins for an LLM. Deterministic.
 *
 * - `extractive:mmr`: maximal marginal relevance (Carbonell & Goldstein 1998) over the evidence's
 *   sentences. Vectors are TF-IDF (raw term counts × smoothed idf `ln((1+N)/(1+df)) + 1` over the
 *   N evidence sentences, L2-normalised, lower-cased alphanumeric tokens of ≥ 2 chars minus English
 *   stop words). Relevance = cosine to the question vector (to the centroid of the candidate
 *   sentences when the question shares no term with the evidence, or when `relevance:"centroid"`).
 *   Score = λ·rel − (1−λ)·max cosine to the already chosen sentences. Candidates of an abstract are
 *   its RESULTS/CONCLUSIONS sentences when those sections are labelled, else all its sentences.
 *   Output in evidence order.
 * - `extractive:lead`: per abstract, the first sentence of its CONCLUSIONS section, else of its
 *   RESULTS section, else its first sentence.
 */
import { z } from "zod";
import type { EvidencePassage, ExtractiveModel } from "./types.ts";

/** Id prefix of the extractive baselines. */
export const EXTRACTIVE_PREFIX = "extractive:";
/** Valid extractive ids. */
export const EXTRACTIVE_IDS = ["extractive:mmr", "extractive:lead"] as const;

/** Config of the extractive baselines (`.strict()`). */
export const ExtractiveConfigSchema = z
  .object({
    /** MMR trade-off λ (1 = relevance only, 0 = diversity only). */
    lambda: z.number().min(0).max(1).default(0.7),
    /** Default number of sentences when the caller gives neither targetSentences nor targetWords. */
    targetSentences: z.number().int().min(1).default(3),
    /** Sentences with fewer words are not candidates (drops "P < .001." fragments). */
    minWords: z.number().int().min(1).default(5),
    /** What relevance is measured against. */
    relevance: z.enum(["auto", "question", "centroid"]).default("auto"),
    /** Restrict candidates to RESULTS/CONCLUSIONS sentences when an abstract labels its sections. */
    preferResultsConclusions: z.boolean().default(true),
  })
  .strict();
/** Parsed extractive config. */
export type ExtractiveConfig = z.infer<typeof ExtractiveConfigSchema>;

/** Section kind of a sentence. */
export type SectionKind = "results" | "conclusions" | "other" | "unlabelled";

/** A sentence of the evidence, with where it came from. */
export interface EvidenceSentence {
  docId: string;
  docIndex: number;
  /** 0-based position within its document. */
  position: number;
  section: SectionKind;
  /** Verbatim text (a substring of the passage text). */
  text: string;
}

const LABELS: Record<string, SectionKind> = {
  results: "results",
  result: "results",
  findings: "results",
  "main results": "results",
  "main outcome results": "results",
  conclusions: "conclusions",
  conclusion: "conclusions",
  interpretation: "conclusions",
  "authors' conclusions": "conclusions",
  "authors conclusions": "conclusions",
  implications: "conclusions",
  "conclusions and relevance": "conclusions",
  background: "other",
  introduction: "other",
  objective: "other",
  objectives: "other",
  aim: "other",
  aims: "other",
  purpose: "other",
  context: "other",
  importance: "other",
  methods: "other",
  method: "other",
  design: "other",
  setting: "other",
  settings: "other",
  participants: "other",
  patients: "other",
  interventions: "other",
  intervention: "other",
  "main outcome measures": "other",
  "main outcomes and measures": "other",
  measurements: "other",
  "materials and methods": "other",
  "search methods": "other",
  "selection criteria": "other",
  "data collection and analysis": "other",
  "study design": "other",
  discussion: "other",
};
const LABEL_RE = new RegExp(
  `(^|\\n|(?<=[.!?])\\s+)(${Object.keys(LABELS)
    .sort((a, b) => b.length - a.length)
    .map((l) => l.replace(/[.*+?^${}()|[\]\\']/g, (c) => (c === "'" ? "['’]" : `\\${c}`)))
    .join("|")})\\s*:\\s*`,
  "gi",
);

const ABBREV = /(?:\b(?:e\.g|i\.e|vs|al|fig|figs|approx|no|nos|ca|cf|dr|mr|mrs|ms|prof|inc|ltd|resp|ref|refs|vol|suppl|min|max|mo|yr|yrs|wk|wks|hr|hrs)\.|\b[A-Z]\.)$/i;

/** Split text into sentences (verbatim substrings); keeps abbreviations such as "e.g.", "vs.", "et al." inside sentences. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n+/)) {
    let start = 0;
    const re = /[.!?]+["')\]]*\s+(?=["'(\[]?[A-Z0-9])/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(block))) {
      const end = m.index + m[0].trimEnd().length;
      const candidate = block.slice(start, end);
      if (ABBREV.test(candidate.trimEnd())) continue;
      const s = candidate.trim();
      if (s) out.push(s);
      start = m.index + m[0].length;
    }
    const rest = block.slice(start).trim();
    if (rest) out.push(rest);
  }
  return out;
}

/** Split one passage into labelled sentences (section from "RESULTS:"-style labels; "unlabelled" when the passage has none). */
export function passageSentences(p: EvidencePassage, docIndex: number): EvidenceSentence[] {
  const text = p.text ?? "";
  const marks: { at: number; after: number; kind: SectionKind }[] = [];
  for (const m of text.matchAll(LABEL_RE)) {
    const label = m[2].toLowerCase().replace(/’/g, "'");
    marks.push({ at: m.index! + m[1].length, after: m.index! + m[0].length, kind: LABELS[label] ?? "other" });
  }
  const segments: { text: string; kind: SectionKind }[] = [];
  if (marks.length === 0) segments.push({ text, kind: "unlabelled" });
  else {
    if (text.slice(0, marks[0].at).trim()) segments.push({ text: text.slice(0, marks[0].at), kind: "other" });
    marks.forEach((mk, i) => segments.push({ text: text.slice(mk.after, i + 1 < marks.length ? marks[i + 1].at : text.length), kind: mk.kind }));
  }
  const out: EvidenceSentence[] = [];
  for (const seg of segments) for (const s of splitSentences(seg.text)) out.push({ docId: p.id, docIndex, position: out.length, section: seg.kind, text: s });
  return out;
}

const STOP = new Set(
  "a an and are as at be been being but by can could did do does for from had has have he her his how in into is it its may might more most no not of on or our over should so such than that the their them then there these they this those to under up was we were what when where which while who whom why will with would within without also both each between among after before during than vs".split(
    " ",
  ),
);

function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => t.length >= 2 && !STOP.has(t));
}

type Vec = Map<string, number>;
function cosine(a: Vec, b: Vec): number {
  let s = 0;
  const [small, big] = a.size < b.size ? [a, b] : [b, a];
  for (const [k, v] of small) {
    const w = big.get(k);
    if (w) s += v * w;
  }
  return s;
}
function normalise(v: Vec): Vec {
  const n = Math.hypot(...v.values());
  if (n === 0) return v;
  for (const [k, x] of v) v.set(k, x / n);
  return v;
}

/** TF-IDF space over a set of sentences (see module doc for the weighting). */
export function buildTfIdf(sentences: string[]): { vectorize(text: string): Vec; vectors: Vec[] } {
  const df = new Map<string, number>();
  const toks = sentences.map(tokens);
  for (const ts of toks) for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1);
  const N = sentences.length;
  const idf = (t: string) => Math.log((1 + N) / (1 + (df.get(t) ?? 0))) + 1;
  const vec = (ts: string[]): Vec => {
    const v: Vec = new Map();
    for (const t of ts) if (df.has(t)) v.set(t, (v.get(t) ?? 0) + 1);
    for (const [k, c] of v) v.set(k, c * idf(k));
    return normalise(v);
  };
  return { vectorize: (text) => vec(tokens(text)), vectors: toks.map(vec) };
}

function wordCount(s: string): number {
  return s.split(/\s+/).filter(Boolean).length;
}

interface Target {
  targetWords?: number;
  targetSentences?: number;
}
function stopper(t: Target, defaultSentences: number): (chosen: EvidenceSentence[]) => boolean {
  const maxS = t.targetSentences ?? (t.targetWords ? Number.POSITIVE_INFINITY : defaultSentences);
  return (chosen) => chosen.length >= maxS || (t.targetWords !== undefined && chosen.reduce((a, s) => a + wordCount(s.text), 0) >= t.targetWords);
}

function checkEvidence(id: string, evidence: EvidencePassage[]): void {
  if (!Array.isArray(evidence) || evidence.length === 0)
    throw new Error(`${id} builds answers only from evidence, and none was given (workflows without evidence, such as P-ZS and P-CoT, cannot use it)`);
}

function finish(chosen: EvidenceSentence[]) {
  const ordered = [...chosen].sort((a, b) => a.docIndex - b.docIndex || a.position - b.position);
  return { text: ordered.map((s) => s.text).join(" "), sentences: ordered.map((s) => ({ docId: s.docId, text: s.text })) };
}

/**
 * Candidate sentences: per passage, RESULTS/CONCLUSIONS sentences when labelled (and preferred),
 * else all; at least `minWords` words; exact duplicates dropped (first kept).
 */
export function candidateSentences(evidence: EvidencePassage[], cfg: Pick<ExtractiveConfig, "minWords" | "preferResultsConclusions">): EvidenceSentence[] {
  const seen = new Set<string>();
  const out: EvidenceSentence[] = [];
  evidence.forEach((p, i) => {
    const all = passageSentences(p, i);
    const rc = all.filter((s) => s.section === "results" || s.section === "conclusions");
    const pool = cfg.preferResultsConclusions && rc.length > 0 ? rc : all;
    for (const s of pool) {
      if (wordCount(s.text) < cfg.minWords || seen.has(s.text)) continue;
      seen.add(s.text);
      out.push(s);
    }
  });
  return out;
}

/**
 * MMR selection.
 * @returns chosen sentences in evidence order and the joined text.
 * @throws Error when `evidence` is empty.
 */
export function mmrSynthesize(input: { question: string; evidence: EvidencePassage[] } & Target, config: ExtractiveConfig = ExtractiveConfigSchema.parse({})) {
  checkEvidence("extractive:mmr", input.evidence);
  const cands = candidateSentences(input.evidence, config);
  const space = buildTfIdf(cands.map((c) => c.text));
  const q = space.vectorize(input.question ?? "");
  let target: Vec = q;
  if (config.relevance === "centroid" || (config.relevance === "auto" && q.size === 0)) {
    const c: Vec = new Map();
    for (const v of space.vectors) for (const [k, x] of v) c.set(k, (c.get(k) ?? 0) + x / space.vectors.length);
    target = normalise(c);
  }
  const rel = space.vectors.map((v) => cosine(v, target));
  const done = stopper(input, config.targetSentences);
  const chosen: number[] = [];
  const left = new Set(cands.map((_, i) => i));
  while (left.size > 0 && !done(chosen.map((i) => cands[i]))) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const i of left) {
      const red = chosen.length ? Math.max(...chosen.map((j) => cosine(space.vectors[i], space.vectors[j]))) : 0;
      const score = config.lambda * rel[i] - (1 - config.lambda) * red;
      if (score > bestScore + 1e-12) {
        bestScore = score;
        best = i;
      }
    }
    chosen.push(best);
    left.delete(best);
  }
  return finish(chosen.map((i) => cands[i]));
}

/**
 * Lead selection: the first CONCLUSIONS sentence of each passage, else its first RESULTS
 * sentence, else its first sentence; capped by targetSentences/targetWords when given.
 * @throws Error when `evidence` is empty.
 */
export function leadSynthesize(input: { question: string; evidence: EvidencePassage[] } & Target) {
  checkEvidence("extractive:lead", input.evidence);
  const picks: EvidenceSentence[] = [];
  input.evidence.forEach((p, i) => {
    const all = passageSentences(p, i);
    const s = all.find((x) => x.section === "conclusions") ?? all.find((x) => x.section === "results") ?? all[0];
    if (s) picks.push(s);
  });
  const done = stopper(input, Number.POSITIVE_INFINITY);
  const chosen: EvidenceSentence[] = [];
  for (const s of picks) {
    if (done(chosen)) break;
    chosen.push(s);
  }
  return finish(chosen);
}

/**
 * Build an extractive baseline.
 * @param id `extractive:mmr` or `extractive:lead`.
 * @param config {@link ExtractiveConfigSchema} input.
 * @throws Error listing the valid ids for an unknown id, or naming the invalid config field.
 */
export function createExtractiveModel(id: string, config: Partial<z.input<typeof ExtractiveConfigSchema>> = {}): ExtractiveModel {
  const r = ExtractiveConfigSchema.safeParse(config ?? {});
  if (!r.success) throw new Error(`Invalid config of ${id}: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  const cfg = r.data;
  if (id === "extractive:mmr") return { id, kind: "extractive", synthesize: (input) => mmrSynthesize(input, cfg) };
  if (id === "extractive:lead") return { id, kind: "extractive", synthesize: (input) => leadSynthesize(input) };
  throw new Error(`Unknown extractive model "${id}"; valid ids: ${EXTRACTIVE_IDS.join(", ")}`);
}
