/**
 * A realistic SYNTHETIC PubMed for scale benches (issue 26 item 1): a seeded generator writing
 * baseline-like `.xml.gz` files (`PubmedArticleSet`, PubMed DTD 2025 element paths, 30,000
 * `PubmedArticle` entries per file by default, then one `DeleteCitation`) whose statistics follow
 * the real abstracts on this machine. Every record is invented: PMIDs start at 50,000,001 (above
 * every real PMID), DOIs use Crossref's test prefix 10.5555, and each file carries a comment saying
 * it is synthetic.
 *
 * Fitted at run time on the real abstracts reachable through the dataset registry (the bundled
 * corpus: PubMedQA, MedEvidence sources, Cohen 2006; plus the PubMed XML fixtures and the 2016
 * MEDLINE slice for structure, MeSH, languages, dates), see {@link fitRealStatistics}:
 * - vocabulary growth: Heaps' law V(N) = K·N^β fitted by least squares on log V vs log N over the
 *   real token stream (lower-cased runs of letters/digits, documents in a seeded random order);
 * - term frequencies: the real words seen ≥ 10 times keep their real frequencies (so frequent
 *   words, most query terms among them, have real posting-list lengths); rarer ranks come from a
 *   Zipf–Mandelbrot tail over an unbounded rank space, P(rank ≥ x) = ((x+q)/(1+q))^−(α−1), whose
 *   (α, q) are chosen so that head + tail follow the fitted Heaps law from 10^4 to 10^10 tokens
 *   ({@link buildModel}, {@link fitZipfMandelbrot}); new words keep appearing, so the vocabulary
 *   grows with N as real PubMed's does. Rank r maps to the r-th most frequent real word while there
 *   are real words (count ≥ 2), then to invented syllable words;
 * - burstiness: a content word (rank > 200) repeats an earlier content word of the same abstract
 *   with the probability that reproduces the real within-abstract repeat rate;
 * - title / section / unstructured abstract lengths, structured-abstract layouts (labels,
 *   NlmCategory, per-section word counts, taken jointly from one real abstract), share without
 *   abstract, languages, MeSH counts and descriptors, publication types, journals, authors and
 *   publication dates: resampled from the real records (empirical distributions).
 * Fitted values ship as {@link STORED_FIT} (with their provenance) for machines without the data
 * mirror; the CLI says which it used.
 *
 * Uniqueness by construction: PMID = 50,000,001 + entry index; DOI = 10.5555/synth.<pmid>; each
 * title holds three words (ranks 51–4,146) encoding a bijection of the entry index, so no two
 * titles are equal. Deterministic: a file depends only on (seed, file index, model), not on the
 * number of worker threads.
 *
 * CLI: `npx tsx experiments/bench/synthetic-pubmed.ts --out dir --entries N [--per-file 30000]
 * [--seed 1] [--jobs n] [--delete-share 0.001] [--gzip-level 4] [--stored-fit] [--json]`.
 */
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { createGzip } from "node:zlib";

/** Version of the generator's model, written to `SYNTHETIC.json` (a bench regenerates files of another version). */
export const GENERATOR_VERSION = 2;
/** First synthetic PMID (real PMIDs are below 42 M in 2025). */
export const SYNTHETIC_PMID_BASE = 50_000_001;
/** Crossref's test DOI prefix: no real article has it. */
export const SYNTHETIC_DOI_PREFIX = "10.5555/synth.";
/** Entries per file, as in the PubMed baseline (files of ~30,000 citations). */
export const DEFAULT_PER_FILE = 30_000;
/** Ranks of the words that encode the entry index in titles: 4,096 words from rank 51. */
const TITLE_CODE_FROM = 51;
const TITLE_CODE_BASE = 4096;
/** Words of higher rank than this are "content words" for the within-abstract repeat model. */
const CONTENT_RANK = 200;

/** Tokens as the Heaps fit counts them: lower-cased runs of letters and digits. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A Heaps' law fit V(N) = K·N^β with the points it was fitted on. */
export interface HeapsFit {
  K: number;
  beta: number;
  /** Coefficient of determination of the log–log least-squares line. */
  r2: number;
  /** Tokens read. */
  tokens: number;
  /** Distinct words at the end. */
  vocabulary: number;
  /** (N tokens, V distinct) measured at log-spaced N. */
  points: Array<[number, number]>;
}

/**
 * Heaps' law fitted on a token stream: distinct words V(N) recorded at log-spaced N (12 per decade,
 * from `minN`), then least squares of log V on log N.
 * @param docs token arrays, read in order as one stream.
 * @throws Error when fewer than 3 points reach `minN`.
 */
export function fitHeaps(docs: Iterable<readonly string[]>, minN = 1000): HeapsFit {
  const seen = new Set<string>();
  const points: Array<[number, number]> = [];
  let n = 0;
  let nextAt = minN;
  for (const toks of docs) {
    for (const t of toks) {
      seen.add(t);
      n++;
      if (n >= nextAt) {
        points.push([n, seen.size]);
        nextAt = Math.ceil(nextAt * 10 ** (1 / 12));
      }
    }
  }
  if (points.at(-1)?.[0] !== n && n >= minN) points.push([n, seen.size]);
  if (points.length < 3) throw new Error(`fitHeaps: ${n} tokens give fewer than 3 points from N = ${minN}`);
  const xs = points.map((p) => Math.log(p[0]));
  const ys = points.map((p) => Math.log(p[1]));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const beta = sxy / sxx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { K: Math.exp(my - beta * mx), beta, r2, tokens: n, vocabulary: seen.size, points };
}

/**
 * Expected number of distinct ranks after `m` draws from the Zipf–Mandelbrot sampler of
 * {@link ZipfSampler} (rank = floor(X), P(X ≥ x) = ((x+q)/(1+q))^−(α−1), x ≥ 1): Σ_r 1 − (1 − p_r)^m,
 * exact for ranks < 100; above, 1 − e^(−m·f(x)) integrated over log-spaced x (f the density), plus the tail m·P(X ≥ end).
 */
export function expectedVocabulary(m: number, alpha: number, q: number): number {
  const a1 = alpha - 1;
  const S = (x: number) => ((x + q) / (1 + q)) ** -a1;
  const R0 = 100;
  let v = 0;
  for (let r = 1; r < R0; r++) v += -Math.expm1(m * Math.log1p(-(S(r) - S(r + 1))));
  const T = Math.log(1e16 / R0);
  const steps = 200;
  const h = T / steps;
  const g = (t: number) => {
    const x = R0 * Math.exp(t);
    const f = (a1 / (1 + q)) * ((x + q) / (1 + q)) ** -alpha;
    return -Math.expm1(-m * f) * x;
  };
  let integral = 0.5 * (g(0) + g(T));
  for (let i = 1; i < steps; i++) integral += g(i * h);
  v += integral * h + m * S(R0 * Math.exp(T));
  return v;
}

/** Parameters of the Zipf–Mandelbrot rank sampler and how well its vocabulary curve follows the target. */
export interface ZipfFit {
  alpha: number;
  q: number;
  /** Root-mean-square of log(E[V]/target) over the fitted points (10^4…10^10 draws). */
  rmsLogError: number;
}

/**
 * Choose (α, q) of the Zipf–Mandelbrot sampler so that its expected vocabulary after m draws,
 * {@link expectedVocabulary}, follows `target(m)` at 13 log-spaced m from 10^4 to 10^10: a grid
 * over α ∈ [1.05, 3] (step 0.1, then 0.01 around the best) and, for each, a golden-section search
 * over log q ∈ [−4, 12].
 */
export function fitZipfMandelbrot(target: (m: number) => number): ZipfFit {
  const ms = Array.from({ length: 13 }, (_, i) => 10 ** (4 + i / 2));
  const logT = ms.map((m) => Math.log(target(m)));
  const err = (alpha: number, q: number) => {
    let s = 0;
    for (let i = 0; i < ms.length; i++) s += (Math.log(expectedVocabulary(ms[i], alpha, q)) - logT[i]) ** 2;
    return Math.sqrt(s / ms.length);
  };
  const phi = (Math.sqrt(5) - 1) / 2;
  // For one α: golden-section search over log q ∈ [−4, 12].
  const bestQ = (alpha: number): ZipfFit => {
    let lo = -4;
    let hi = 12;
    let c = hi - phi * (hi - lo);
    let d = lo + phi * (hi - lo);
    let fc = err(alpha, Math.exp(c));
    let fd = err(alpha, Math.exp(d));
    for (let it = 0; it < 22; it++) {
      if (fc < fd) {
        hi = d;
        d = c;
        fd = fc;
        c = hi - phi * (hi - lo);
        fc = err(alpha, Math.exp(c));
      } else {
        lo = c;
        c = d;
        fc = fd;
        d = lo + phi * (hi - lo);
        fd = err(alpha, Math.exp(d));
      }
    }
    const q = Math.exp((lo + hi) / 2);
    return { alpha, q, rmsLogError: err(alpha, q) };
  };
  // Coarse grid over α (step 0.1), then the neighbourhood of the best at step 0.01.
  let best: ZipfFit = { alpha: 2, q: 1, rmsLogError: Infinity };
  for (let alpha = 1.05; alpha <= 3.0001; alpha += 0.1) {
    const f = bestQ(alpha);
    if (f.rmsLogError < best.rmsLogError) best = f;
  }
  const center = best.alpha;
  for (let alpha = Math.max(1.02, center - 0.1); alpha <= center + 0.1001; alpha += 0.01) {
    const f = bestQ(alpha);
    if (f.rmsLogError < best.rmsLogError) best = f;
  }
  return best;
}

/** One section of a real structured abstract: its label, NLM category and length in words. */
export interface SectionShape {
  label: string;
  category: string | null;
  words: number;
}

/** Everything the generator resamples, fitted on real records (see {@link fitRealStatistics}). */
export interface RealStatistics {
  /** Where the numbers come from (files or "stored constants"). */
  provenance: string;
  abstracts: number;
  heaps: Omit<HeapsFit, "points">;
  /** Real words by descending count (count ≥ 2): rank r → headWords[r − 1]. */
  headWords: string[];
  /** Counts of {@link headWords} in the real token stream (same order). */
  headCounts: number[];
  /** Share of content-word tokens (rank > 200) of an abstract that repeat an earlier one of the same abstract. */
  repeatRate: number;
  /** Words per title (one value per real title). */
  titleWords: number[];
  /** Words per unstructured abstract. */
  unstructuredWords: number[];
  /** Layouts of real structured abstracts. */
  structuredLayouts: SectionShape[][];
  /** Share of abstracts that are structured, among records with an abstract. */
  structuredShare: number;
  /** Share of records without an abstract. */
  noAbstractShare: number;
  /** Words per sentence. */
  sentenceWords: number[];
  /** First language of each real record (PubMed codes: eng, ita, ger …). */
  languages: string[];
  /** MeSH headings per real record. */
  meshCounts: number[];
  /** Every real MeSH descriptor occurrence (drawing uniformly = drawing by frequency): [name, UI]. */
  meshDescriptors: Array<[string, string]>;
  /** Publication-type lists of real records (retraction and erratum types left out): [name, UI][]. */
  publicationTypes: Array<Array<[string, string]>>;
  /** Publication years of real records. */
  years: number[];
  /** Share of publication dates given as a year only / year-month (the rest are full dates). */
  yearOnlyShare: number;
  yearMonthShare: number;
  /** Real journals: [title, ISO abbreviation, ISSN]. */
  journals: Array<[string, string, string]>;
  /** Authors per real record. */
  authorCounts: number[];
  /** Real author names: [last name, fore name]. */
  authorNames: Array<[string, string]>;
}

/** The generator's model: the real statistics plus the fitted Zipf–Mandelbrot sampler and the repeat probability. */
export interface SyntheticModel {
  stats: RealStatistics;
  /**
   * Ranks 1…headSize are drawn with their real relative frequencies (count / real tokens; words
   * seen ≥ {@link HEAD_MIN_COUNT} times), together `headMass` of all draws; the rest are headSize +
   * a draw of the Zipf–Mandelbrot tail `zipf`.
   */
  headSize: number;
  headMass: number;
  zipf: ZipfFit;
  /** Probability that a content-word draw copies an earlier content word of the same abstract. */
  copyProbability: number;
  /** Share of draws that are content-word draws eligible for copying (from a calibration run). */
  contentShare: number;
}

/** What {@link STORED_FIT} was fitted on, as printed when the generator runs from it. */
export const STORED_FIT_SOURCE = "3,997 real abstracts, 1,037,646 tokens, 28,314 distinct words, R² 0.995";

/**
 * Fitted values stored for machines without the data mirror. Provenance: `loadModel()` (seed 1) on
 * this repository's data mirror, 2026-12-03: the bundled corpus (3,340 PubMedQA, MedEvidence and
 * Cohen 2006 abstracts) plus 754 records of the 146 `pubmed-xml` files (metapub and Biopython
 * fixtures, medline16n0902) — 3,997 abstracts, 1,037,646 tokens, 28,314 distinct words, Heaps R²
 * 0.995. Only scalars are stored: the empirical lists fall back to coarse defaults
 * ({@link storedStatistics}), every word is invented, and the Zipf–Mandelbrot law (fitted to the
 * Heaps line alone, v1 of the model) covers every rank — its head is flatter than real text's.
 */
export const STORED_FIT = {
  heaps: { K: 7.436, beta: 0.6065 },
  zipf: { alpha: 1.65, q: 74.74, rmsLogError: 0.0072 },
  copyProbability: 0.336,
  contentShare: 0.431,
  repeatRate: 0.356,
  structuredShare: 0.368,
  noAbstractShare: 0.129,
} as const;

// ---------------------------------------------------------------------------------------------
// Fitting on the real data

/** A small seeded PRNG (sfc32), uniform in [0, 1). */
export function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** sfc32 seeded from integers through splitmix32. */
export function seededRng(...seeds: number[]): () => number {
  let h = 0x9e3779b9;
  const mix = () => {
    h = (h + 0x9e3779b9) | 0;
    let z = h;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  for (const s of seeds) h = (h ^ Math.imul(s | 0, 0x27d4eb2d) ^ Math.floor(s / 4294967296)) | 0;
  const r = sfc32(mix(), mix(), mix(), mix());
  for (let i = 0; i < 12; i++) r();
  return r;
}

function shuffle<T>(xs: T[], rng: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

const RETRACTION_TYPES = new Set(["Retracted Publication", "Retraction of Publication", "Published Erratum", "Retraction Notice"]);

/**
 * Fit {@link RealStatistics} on the real data reachable through the dataset registry: the bundled
 * corpus (token stream, titles, repeat rate, years) and every PubMed XML file of the `pubmed-xml`
 * dataset (structure, sections, languages, MeSH, publication types, journals, authors, dates),
 * parsed by the project's own parser.
 * @throws the registry's error when the data cannot be had (callers fall back to {@link STORED_FIT}).
 */
export async function fitRealStatistics(seed = 1): Promise<RealStatistics> {
  const { loadBundledCorpus } = await import("../../corpus/bundled-corpus.ts");
  const { datasetDir } = await import("../../corpus/datasets/files.ts");
  const { parsePubmedFile } = await import("../../corpus/pubmed-xml.ts");
  const { docs } = await loadBundledCorpus({ cache: true });
  const xmlDir = await datasetDir("pubmed-xml");
  const xmlFiles = (readdirSync(xmlDir, { recursive: true }) as string[])
    .filter((f) => /\.xml(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(xmlDir, f));
  const records = [];
  for (const f of xmlFiles) for await (const r of parsePubmedFile(f)) if (!r.flags.deleted) records.push(r);

  // Token stream: the bundled abstracts (title + text) and the XML records not already among them.
  const ids = new Set(docs.map((d) => d.id));
  const texts: string[] = docs.map((d) => `${d.title} ${d.text.replace(/^[A-Z][A-Z /&-]+: /gm, "")}`);
  const titles = docs.map((d) => d.title);
  for (const r of records) {
    if (ids.has(r.pmid) || r.abstract.length === 0) continue;
    texts.push(`${r.title} ${r.abstract.map((s) => s.text).join(" ")}`);
    titles.push(r.title);
  }
  const rng = seededRng(seed, 7);
  const tokenDocs = shuffle(texts.map(wordTokens), rng);
  const heaps = fitHeaps(tokenDocs);
  const counts = new Map<string, number>();
  for (const toks of tokenDocs) for (const t of toks) counts.set(t, (counts.get(t) ?? 0) + 1);
  const headWords = [...counts.entries()]
    .filter(([, c]) => c >= 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([w]) => w);
  const rankOf = new Map(headWords.map((w, i) => [w, i + 1]));
  let content = 0;
  let repeats = 0;
  for (const toks of tokenDocs) {
    const seen = new Set<string>();
    for (const t of toks) {
      if ((rankOf.get(t) ?? Infinity) <= CONTENT_RANK) continue;
      content++;
      if (seen.has(t)) repeats++;
      else seen.add(t);
    }
  }
  const sentenceWords: number[] = [];
  for (const t of texts.slice(0, 2000)) for (const s of t.split(/(?<=[.!?])\s+(?=[A-Z])/)) if (s.length > 0) sentenceWords.push(Math.max(3, wordTokens(s).length));

  // Structure, from the XML records.
  const withAbstract = records.filter((r) => r.abstract.length > 0);
  const structured = withAbstract.filter((r) => r.abstract.length >= 2 && r.abstract.every((s) => s.label));
  const structuredLayouts = structured.map((r) => r.abstract.map((s) => ({ label: s.label!, category: s.nlmCategory ?? null, words: wordTokens(s.text).length })));
  const unstructuredWords = [
    ...withAbstract.filter((r) => !structured.includes(r)).map((r) => wordTokens(r.abstract.map((s) => s.text).join(" ")).length),
    ...docs.filter((d) => d.source?.startsWith("cohen2006")).map((d) => wordTokens(d.text).length),
  ];
  const meshDescriptors: Array<[string, string]> = [];
  const meshUi = await meshUiMap(xmlFiles);
  for (const r of records) for (const m of r.meshHeadings) meshDescriptors.push([m, meshUi.get(m) ?? "D000000"]);
  const pubTypeUi = new Map<string, string>([["Journal Article", "D016428"]]);
  const dates = records.map((r) => r.pubDate).filter((d): d is string => d !== null);
  const years = [...docs.map((d) => d.year).filter((y): y is number => typeof y === "number" && y > 1900), ...dates.map((d) => Number(d.slice(0, 4)))];
  const journals = new Map<string, [string, string, string]>();
  for (const r of records) if (r.journal.title) journals.set(r.journal.title, [r.journal.title, r.journal.isoAbbreviation ?? r.journal.title, r.journal.issn ?? "0000-0000"]);
  const authorNames: Array<[string, string]> = [];
  for (const r of records) for (const a of r.authors ?? []) if (a.lastName) authorNames.push([a.lastName, a.foreName ?? a.initials ?? ""]);
  return {
    provenance: `bundled corpus (${docs.length} abstracts: PubMedQA, MedEvidence sources, Cohen 2006) + ${records.length} records of ${xmlFiles.length} PubMed XML files (${xmlDir})`,
    abstracts: tokenDocs.length,
    heaps: { K: heaps.K, beta: heaps.beta, r2: heaps.r2, tokens: heaps.tokens, vocabulary: heaps.vocabulary },
    headWords,
    headCounts: headWords.map((w) => counts.get(w)!),
    repeatRate: repeats / content,
    titleWords: titles.map((t) => wordTokens(t).length).filter((n) => n > 0),
    unstructuredWords: unstructuredWords.filter((n) => n > 0),
    structuredLayouts,
    structuredShare: structured.length / withAbstract.length,
    noAbstractShare: 1 - withAbstract.length / records.length,
    sentenceWords,
    languages: records.map((r) => r.languages[0] ?? "eng"),
    meshCounts: records.map((r) => r.meshHeadings.length),
    meshDescriptors,
    publicationTypes: records.map((r) => r.publicationTypes.filter((p) => !RETRACTION_TYPES.has(p)).map((p): [string, string] => [p, pubTypeUi.get(p) ?? ""])),
    years,
    yearOnlyShare: dates.filter((d) => d.length === 4).length / dates.length,
    yearMonthShare: dates.filter((d) => d.length === 7).length / dates.length,
    journals: [...journals.values()],
    authorCounts: records.map((r) => (r.authors ?? []).length),
    authorNames,
  };
}

/** MeSH descriptor name → UI read from the XML files' `DescriptorName UI="…"` attributes (the parsed record keeps names only). */
async function meshUiMap(files: string[]): Promise<Map<string, string>> {
  const { readFileSync } = await import("node:fs");
  const { gunzipSync } = await import("node:zlib");
  const out = new Map<string, string>();
  const re = /<DescriptorName\b[^>]*?UI="(D\d+)"[^>]*>([^<]+)</g;
  for (const f of files) {
    const buf = readFileSync(f);
    const xml = (f.endsWith(".gz") ? gunzipSync(buf) : buf).toString("utf8");
    for (const m of xml.matchAll(re)) out.set(decodeXml(m[2]), m[1]);
  }
  return out;
}

function decodeXml(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Statistics from {@link STORED_FIT} alone (no data mirror): invented words, coarse empirical lists. */
export function storedStatistics(): RealStatistics {
  const layout = (b: number, m: number, r: number, c: number): SectionShape[] => [
    { label: "BACKGROUND", category: "BACKGROUND", words: b },
    { label: "METHODS", category: "METHODS", words: m },
    { label: "RESULTS", category: "RESULTS", words: r },
    { label: "CONCLUSIONS", category: "CONCLUSIONS", words: c },
  ];
  return {
    provenance: "stored constants (STORED_FIT in experiments/bench/synthetic-pubmed.ts); no real words",
    abstracts: 0,
    heaps: { K: STORED_FIT.heaps.K, beta: STORED_FIT.heaps.beta, r2: NaN, tokens: 0, vocabulary: 0 },
    headWords: [],
    headCounts: [],
    repeatRate: STORED_FIT.repeatRate,
    titleWords: [6, 8, 10, 11, 12, 13, 14, 15, 16, 18, 20, 24],
    unstructuredWords: [90, 120, 150, 170, 190, 210, 230, 250, 280, 320],
    structuredLayouts: [layout(40, 70, 90, 40), layout(30, 50, 70, 30), layout(50, 90, 110, 45), layout(35, 60, 120, 35)],
    structuredShare: STORED_FIT.structuredShare,
    noAbstractShare: STORED_FIT.noAbstractShare,
    sentenceWords: [8, 12, 15, 18, 20, 22, 25, 28, 32, 40],
    languages: [...Array(33).fill("eng"), "ita"],
    meshCounts: [0, 5, 8, 10, 12, 14, 16],
    meshDescriptors: [
      ["Humans", "D006801"],
      ["Female", "D005260"],
      ["Male", "D008297"],
      ["Adult", "D000328"],
      ["Middle Aged", "D008875"],
    ],
    publicationTypes: [[["Journal Article", "D016428"]]],
    years: Array.from({ length: 40 }, (_, i) => 1985 + i),
    yearOnlyShare: 0.3,
    yearMonthShare: 0.4,
    journals: [["Journal of synthetic medicine", "J Synth Med", "0000-0000"]],
    authorCounts: [1, 2, 3, 4, 5, 6, 8],
    authorNames: [
      ["Doe", "Jane"],
      ["Roe", "Richard"],
    ],
  };
}

/** The model from {@link STORED_FIT} alone (no fitting, no data mirror). */
export function storedModel(): SyntheticModel {
  return { stats: storedStatistics(), headSize: 0, headMass: 0, zipf: { ...STORED_FIT.zipf }, copyProbability: STORED_FIT.copyProbability, contentShare: STORED_FIT.contentShare };
}

/** Real words seen at least this often (in ~1 M real tokens) keep their real frequency; rarer ranks come from the fitted tail. */
export const HEAD_MIN_COUNT = 10;

/** Expected distinct ranks among the head after `m` draws of the mixture: Σ_{r ≤ H} 1 − (1 − p_r)^m. */
function expectedHeadVocabulary(m: number, probs: Float64Array): number {
  let v = 0;
  for (let i = 0; i < probs.length; i++) v += -Math.expm1(m * Math.log1p(-probs[i]));
  return v;
}

/**
 * Build the generator's model from real statistics. Ranks 1…H (real words seen ≥
 * {@link HEAD_MIN_COUNT} times) are drawn with their real frequencies, so frequent words — most
 * query terms — have their real posting-list lengths. The tail (H + Zipf–Mandelbrot ranks) is fitted
 * so that head + tail follow the Heaps line: the tail's expected vocabulary after (1 − head mass)·N
 * draws must be K·N^β minus the head's expected vocabulary after N draws. The copy probability p
 * makes the simulated within-abstract repeat rate of content words equal the real one (repeat =
 * iid + (1 − iid)·p, iid measured at p = 0); K is then corrected twice by the ratio of the simulated
 * vocabulary (5,000 abstracts with copies, ~1 M draws) to K·N^β, since copies add no new words.
 */
export function buildModel(stats: RealStatistics): SyntheticModel {
  const { K, beta } = stats.heaps;
  const total = stats.heaps.tokens;
  let headSize = 0;
  while (headSize < stats.headCounts.length && stats.headCounts[headSize] >= HEAD_MIN_COUNT) headSize++;
  const probs = Float64Array.from(stats.headCounts.slice(0, headSize), (c) => c / total);
  const headMass = probs.reduce((a, b) => a + b, 0);
  const fitTail = (k: number) =>
    fitZipfMandelbrot((mt) => {
      const m = mt / (1 - headMass);
      return Math.max(1, k * m ** beta - expectedHeadVocabulary(m, probs));
    });
  let model: SyntheticModel = { stats, headSize, headMass, zipf: fitTail(K), copyProbability: 0, contentShare: 0 };
  const iid = simulateAbstracts(model);
  model.copyProbability = Math.min(0.9, Math.max(0, (stats.repeatRate - iid.repeatRate) / (1 - iid.repeatRate)));
  let k2 = K;
  let sim = iid;
  for (let pass = 0; pass < 2; pass++) {
    sim = simulateAbstracts(model);
    k2 /= sim.vocabulary / (K * sim.draws ** beta);
    model = { ...model, zipf: fitTail(k2) };
  }
  return { ...model, contentShare: sim.contentShare };
}

/** Ranks drawn as {@link EntryWriter} draws them for 5,000 unstructured abstracts (seeded): repeat rate, content share, draws and distinct ranks. */
function simulateAbstracts(model: SyntheticModel): { repeatRate: number; contentShare: number; draws: number; vocabulary: number } {
  const { stats, copyProbability: copyP } = model;
  const rng = seededRng(99);
  const sampler = new RankSampler(model, rng);
  let content = 0;
  let repeats = 0;
  let draws = 0;
  const all = new Set<number>();
  for (let d = 0; d < 5000; d++) {
    const n = pick(stats.unstructuredWords, rng);
    const seen: number[] = [];
    const set = new Set<number>();
    for (let i = 0; i < n; i++) {
      let r = sampler.next();
      draws++;
      if (r > CONTENT_RANK) {
        if (seen.length > 0 && rng() < copyP) r = seen[Math.floor(rng() * seen.length)];
        content++;
        if (set.has(r)) repeats++;
        else set.add(r);
        seen.push(r);
      }
      all.add(r);
    }
  }
  return { repeatRate: repeats / content, contentShare: content / draws, draws, vocabulary: all.size };
}

// ---------------------------------------------------------------------------------------------
// Generation

/** Zipf–Mandelbrot ranks: floor((1+q)·U^(−1/(α−1)) − q), so P(rank ≥ x) = ((x+q)/(1+q))^−(α−1). */
export class ZipfSampler {
  private readonly e: number;
  constructor(
    alpha: number,
    private readonly q: number,
    private readonly rng: () => number,
  ) {
    this.e = -1 / (alpha - 1);
  }
  next(): number {
    return zipfMandelbrotRank(1 - this.rng(), this.e, this.q, 1e15); // u in (0, 1]
  }
}

/**
 * The Zipf–Mandelbrot rank whose tail probability is `u` in (0, 1]: floor((1+q)·u^e − q) with
 * e = −1/(α−1), clamped to [1, `maxRank`] (shared with tests/helpers/zipf-docs.ts).
 */
export function zipfMandelbrotRank(u: number, e: number, q: number, maxRank: number): number {
  const x = Math.floor((1 + q) * Math.exp(e * Math.log(u)) - q);
  return x < 1 ? 1 : x > maxRank ? maxRank : x;
}

/** Ranks of the model: the real head by its real frequencies (binary search in the cumulative shares), else headSize + a Zipf–Mandelbrot tail rank. */
export class RankSampler {
  private readonly cum: Float64Array;
  private readonly tail: ZipfSampler;
  constructor(
    private readonly model: Pick<SyntheticModel, "stats" | "headSize" | "headMass" | "zipf">,
    private readonly rng: () => number,
  ) {
    const total = model.stats.heaps.tokens;
    this.cum = new Float64Array(model.headSize);
    let c = 0;
    for (let i = 0; i < model.headSize; i++) this.cum[i] = c += model.stats.headCounts[i] / total;
    this.tail = new ZipfSampler(model.zipf.alpha, model.zipf.q, rng);
  }
  next(): number {
    const u = this.rng();
    if (u >= this.model.headMass) return this.model.headSize + this.tail.next();
    const cum = this.cum;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo + 1;
  }
}

const ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "dr", "fl", "gr", "kr", "pl", "pr", "st", "tr", "ch", "th", "ph", "sc", "sp", "x"];
const VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "y"];
const CODAS = ["", "n", "r", "l", "m", "x", "t", "c"];
const SUFFIXES = ["in", "ase", "ol", "ide", "ine", "itis", "oma", "yl", "ium", "ate", "one", "ic", "al", "um", "ar", "an"];

/**
 * The invented word of rank `r` beyond the real vocabulary: a bijective mixed-radix spelling of
 * r in syllables (onset + vowel + coda) ending in a medical-looking suffix; distinct ranks give
 * distinct words, and longer words for rarer ranks.
 */
export function inventedWord(r: number): string {
  return spellRank(r, MEDICAL_SYLLABLES);
}

/** The letters {@link spellRank} builds words from. */
export interface SyllableAlphabet {
  readonly onsets: readonly string[];
  readonly vowels: readonly string[];
  readonly codas: readonly string[];
  /** The word's last part, chosen by r mod its length. */
  readonly suffixes: readonly string[];
}

const MEDICAL_SYLLABLES: SyllableAlphabet = { onsets: ONSETS, vowels: VOWELS, codas: CODAS, suffixes: SUFFIXES };

/**
 * Rank `r` spelled in the syllables of `a`: a bijective mixed-radix spelling (onset + vowel +
 * coda per digit) then a suffix; distinct ranks give distinct words, rarer ranks longer words
 * (shared with tests/helpers/zipf-docs.ts).
 */
export function spellRank(r: number, a: SyllableAlphabet): string {
  const { onsets, vowels, codas, suffixes } = a;
  let n = r;
  const suffix = suffixes[n % suffixes.length];
  n = Math.floor(n / suffixes.length);
  let w = "";
  const syl = onsets.length * vowels.length * codas.length;
  do {
    const s = n % syl;
    n = Math.floor(n / syl);
    w += onsets[s % onsets.length] + vowels[Math.floor(s / onsets.length) % vowels.length] + codas[Math.floor(s / (onsets.length * vowels.length))];
  } while (n > 0);
  return w + suffix;
}

function pick<T>(xs: readonly T[], rng: () => number): T {
  return xs[Math.floor(rng() * xs.length)];
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** What a file's generation returns. */
export interface FileResult {
  file: string;
  entries: number;
  deletes: number;
  words: number;
}

/** Generates the entries of one file from the model (one PRNG per file). */
class EntryWriter {
  private readonly rng: () => number;
  private readonly sampler: RankSampler;
  private readonly head: string[];
  private readonly invented = new Map<number, string>();
  words = 0;

  constructor(
    private readonly model: SyntheticModel,
    seed: number,
    fileIndex: number,
  ) {
    this.rng = seededRng(seed, fileIndex, 26);
    this.sampler = new RankSampler(model, this.rng);
    this.head = model.stats.headWords;
  }

  private word(r: number): string {
    if (r <= this.head.length) return this.head[r - 1];
    let w = this.invented.get(r);
    if (w === undefined) {
      w = inventedWord(r);
      if (r < 2_000_000) this.invented.set(r, w);
    }
    return w;
  }

  /** `n` words of running text in sentences (capitalised, commas, full stops). */
  private text(n: number, seen: number[]): string {
    const rng = this.rng;
    const p = this.model.copyProbability;
    const sl = this.model.stats.sentenceWords;
    let out = "";
    let left = pick(sl, rng);
    let first = true;
    for (let i = 0; i < n; i++) {
      let r = this.sampler.next();
      if (r > CONTENT_RANK) {
        if (seen.length > 0 && rng() < p) r = seen[Math.floor(rng() * seen.length)];
        seen.push(r);
      }
      let w = this.word(r);
      if (first) {
        w = w.charAt(0).toUpperCase() + w.slice(1);
        first = false;
      }
      out += w;
      left--;
      if (i === n - 1) out += ".";
      else if (left <= 0) {
        out += ". ";
        first = true;
        left = pick(sl, rng);
      } else out += rng() < 0.07 ? ", " : " ";
    }
    this.words += n;
    return out;
  }

  /** Title of entry `index`: its length from the real titles, three words encoding the index. */
  private title(index: number, seen: number[]): string {
    const n = Math.max(4, pick(this.model.stats.titleWords, this.rng));
    // Bijection of the index on [0, 2^36): odd multiplier mod 2^36 (done in two 18-bit halves).
    const M = 2 ** 36;
    const mixed = Number((BigInt(index) * 0x9e3779b97n + 0x5bd1e995n) % BigInt(M));
    const code = [mixed % TITLE_CODE_BASE, Math.floor(mixed / TITLE_CODE_BASE) % TITLE_CODE_BASE, Math.floor(mixed / TITLE_CODE_BASE ** 2)];
    const body = this.text(n - 3, seen)
      .slice(0, -1)
      .split(" ");
    const at = [Math.floor(this.rng() * (body.length + 1)), Math.floor(this.rng() * (body.length + 2)), body.length + 2];
    for (let j = 0; j < 3; j++) body.splice(Math.min(at[j], body.length), 0, this.word(TITLE_CODE_FROM + code[j]));
    this.words += 3;
    let t = body.join(" ");
    t = t.charAt(0).toUpperCase() + t.slice(1) + ".";
    return t;
  }

  /** One `<PubmedArticle>` for entry `index` (0-based over the whole corpus). */
  entry(index: number): string {
    const rng = this.rng;
    const s = this.model.stats;
    const pmid = SYNTHETIC_PMID_BASE + index;
    const doi = `${SYNTHETIC_DOI_PREFIX}${pmid}`;
    const seen: number[] = [];
    const lang = pick(s.languages, rng);
    let title = this.title(index, seen);
    if (lang !== "eng") title = `[${title.slice(0, -1)}].`;
    let abstract = "";
    if (rng() >= s.noAbstractShare) {
      if (rng() < s.structuredShare && s.structuredLayouts.length > 0) {
        for (const sec of pick(s.structuredLayouts, rng)) {
          const cat = sec.category ? ` NlmCategory="${esc(sec.category)}"` : "";
          abstract += `<AbstractText Label="${esc(sec.label)}"${cat}>${this.text(Math.max(3, sec.words), seen)}</AbstractText>`;
        }
      } else abstract = `<AbstractText>${this.text(Math.max(10, pick(s.unstructuredWords, rng)), seen)}</AbstractText>`;
      abstract = `<Abstract>${abstract}</Abstract>`;
    }
    const year = pick(s.years, rng);
    const month = Math.floor(rng() * 12);
    const u = rng();
    const pubDate =
      u < s.yearOnlyShare
        ? `<Year>${year}</Year>`
        : u < s.yearOnlyShare + s.yearMonthShare
          ? `<Year>${year}</Year><Month>${MONTHS[month]}</Month>`
          : `<Year>${year}</Year><Month>${MONTHS[month]}</Month><Day>${1 + Math.floor(rng() * 28)}</Day>`;
    const [jTitle, jIso, issn] = pick(s.journals, rng);
    const nAuthors = pick(s.authorCounts, rng);
    let authors = "";
    for (let a = 0; a < nAuthors; a++) {
      const [last, fore] = pick(s.authorNames, rng);
      authors += `<Author ValidYN="Y"><LastName>${esc(last)}</LastName><ForeName>${esc(fore)}</ForeName><Initials>${esc(fore.charAt(0))}</Initials></Author>`;
    }
    const nMesh = pick(s.meshCounts, rng);
    let mesh = "";
    const used = new Set<string>();
    for (let m = 0; m < nMesh * 3 && used.size < nMesh; m++) {
      const [name, ui] = pick(s.meshDescriptors, rng);
      if (used.has(name)) continue;
      used.add(name);
      mesh += `<MeshHeading><DescriptorName UI="${ui}" MajorTopicYN="N">${esc(name)}</DescriptorName></MeshHeading>`;
    }
    let types = pick(s.publicationTypes, rng);
    if (types.length === 0) types = [["Journal Article", "D016428"]];
    const pubTypes = types.map(([n, ui]) => `<PublicationType UI="${ui}">${esc(n)}</PublicationType>`).join("");
    return (
      `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">${pmid}</PMID>` +
      `<DateRevised><Year>${Math.max(year, 2020)}</Year><Month>01</Month><Day>01</Day></DateRevised>` +
      `<Article PubModel="Print"><Journal><ISSN IssnType="Print">${esc(issn)}</ISSN><JournalIssue CitedMedium="Print"><Volume>${1 + Math.floor(rng() * 90)}</Volume><Issue>${1 + Math.floor(rng() * 12)}</Issue><PubDate>${pubDate}</PubDate></JournalIssue>` +
      `<Title>${esc(jTitle)}</Title><ISOAbbreviation>${esc(jIso)}</ISOAbbreviation></Journal><ArticleTitle>${title}</ArticleTitle>` +
      `<Pagination><MedlinePgn>${1 + Math.floor(rng() * 900)}-${1 + Math.floor(rng() * 20)}</MedlinePgn></Pagination><ELocationID EIdType="doi" ValidYN="Y">${doi}</ELocationID>` +
      `${abstract}${nAuthors > 0 ? `<AuthorList CompleteYN="Y">${authors}</AuthorList>` : ""}<Language>${esc(lang)}</Language><PublicationTypeList>${pubTypes}</PublicationTypeList></Article>` +
      `<MedlineJournalInfo><Country>United States</Country><MedlineTA>${esc(jIso)}</MedlineTA><NlmUniqueID>${100000000 + (pmid % 9000)}</NlmUniqueID><ISSNLinking>${esc(issn)}</ISSNLinking></MedlineJournalInfo>` +
      `${mesh ? `<MeshHeadingList>${mesh}</MeshHeadingList>` : ""}</MedlineCitation>` +
      `<PubmedData><PublicationStatus>ppublish</PublicationStatus><ArticleIdList><ArticleId IdType="pubmed">${pmid}</ArticleId><ArticleId IdType="doi">${doi}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>\n`
    );
  }
}

/** Options of {@link generateSyntheticPubmed}. */
export interface GenerateOptions {
  outDir: string;
  /** Total `PubmedArticle` entries. */
  entries: number;
  perFile?: number;
  seed?: number;
  /** Worker threads (default: number of CPUs; 0 or 1 = this thread). */
  jobs?: number;
  /** Share of each file's entries listed again in its `DeleteCitation` (default 0.001, at least 1 per file). */
  deleteShare?: number;
  gzipLevel?: number;
  /** Progress line sink. */
  log?: (line: string) => void;
}

/** File name of file `i` (0-based): baseline-like `synthetic26n0001.xml.gz`. */
export function syntheticFileName(i: number): string {
  return `synthetic26n${String(i + 1).padStart(4, "0")}.xml.gz`;
}

/** PMIDs file `f` deletes: ⌈share·count⌉ distinct entries of its own range (a stride walk, deterministic). */
export function deletedPmids(f: number, perFile: number, entries: number, share: number): number[] {
  const start = f * perFile;
  const count = Math.min(perFile, entries - start);
  const d = Math.min(count, Math.max(1, Math.ceil(count * share)));
  const step = 7919; // prime
  const out: number[] = [];
  const seen = new Set<number>();
  for (let j = 0; out.length < d; j++) {
    let k = (j * step + f * 31) % count;
    while (seen.has(k)) k = (k + 1) % count;
    seen.add(k);
    out.push(SYNTHETIC_PMID_BASE + start + k);
  }
  return out.sort((a, b) => a - b);
}

/** Write file `f` of the corpus. */
export async function writeSyntheticFile(model: SyntheticModel, o: Required<Omit<GenerateOptions, "log" | "jobs">>, f: number): Promise<FileResult> {
  const start = f * o.perFile;
  const count = Math.min(o.perFile, o.entries - start);
  const w = new EntryWriter(model, o.seed, f);
  const file = join(o.outDir, syntheticFileName(f));
  const gz = createGzip({ level: o.gzipLevel });
  const out = createWriteStream(file);
  gz.pipe(out);
  const done = new Promise<void>((res, rej) => {
    out.on("finish", res);
    out.on("error", rej);
    gz.on("error", rej);
  });
  const write = async (s: string) => {
    if (!gz.write(s)) await new Promise<void>((res) => gz.once("drain", res));
  };
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n` +
      `<!-- SYNTHETIC PubMed-like data generated by medsynth experiments/bench/synthetic-pubmed.ts (seed ${o.seed}, file ${f + 1}): invented records, not real citations. -->\n<PubmedArticleSet>\n`,
  );
  let chunk = "";
  for (let i = 0; i < count; i++) {
    chunk += w.entry(start + i);
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = "";
    }
  }
  const dels = deletedPmids(f, o.perFile, o.entries, o.deleteShare);
  chunk += `<DeleteCitation>${dels.map((p) => `<PMID Version="1">${p}</PMID>`).join("")}</DeleteCitation>\n</PubmedArticleSet>\n`;
  await write(chunk);
  gz.end();
  await done;
  return { file, entries: count, deletes: dels.length, words: w.words };
}

/** A generated record as the BM25 benches index it: PMID as id, title, abstract text (sections as `Label: text`). */
export interface SyntheticDoc {
  id: string;
  title: string;
  text: string;
}

const unesc = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");

/**
 * The records of a synthetic corpus generated in memory, without XML files or ingest: the same
 * entries (same PRNG streams per file, so the same words) as {@link generateSyntheticPubmed} with
 * the same model, seed and `perFile` writes, minus the PMIDs each file's `DeleteCitation` removes
 * (as ingest drops them). Title and abstract are read back from each entry's XML; abstract
 * sections are joined as `Label: text`, unlabelled ones as their text. For benches that need the
 * documents only (e.g. `bm25-vs-bm25s.ts`).
 * @param opts.entries entries generated (documents returned ≈ entries × (1 − deleteShare)).
 */
export function* syntheticDocs(model: SyntheticModel, opts: { entries: number; perFile?: number; seed?: number; deleteShare?: number }): Generator<SyntheticDoc> {
  const files = Math.ceil(opts.entries / (opts.perFile ?? DEFAULT_PER_FILE));
  for (let f = 0; f < files; f++) yield* syntheticFileDocs(model, f, opts);
}

/** The documents of file `f` (0-based) of {@link syntheticDocs}: the entries file f holds, minus its deleted PMIDs. */
export function syntheticFileDocs(model: SyntheticModel, f: number, opts: { entries: number; perFile?: number; seed?: number; deleteShare?: number }): SyntheticDoc[] {
  const perFile = opts.perFile ?? DEFAULT_PER_FILE;
  const start = f * perFile;
  const count = Math.min(perFile, opts.entries - start);
  const deleted = new Set(deletedPmids(f, perFile, opts.entries, opts.deleteShare ?? 0.001));
  const w = new EntryWriter(model, opts.seed ?? 1, f);
  const out: SyntheticDoc[] = [];
  for (let i = 0; i < count; i++) {
    const xml = w.entry(start + i);
    const pmid = SYNTHETIC_PMID_BASE + start + i;
    if (deleted.has(pmid)) continue;
    const title = unesc(/<ArticleTitle>([\s\S]*?)<\/ArticleTitle>/.exec(xml)?.[1] ?? "");
    const parts: string[] = [];
    for (const m of xml.matchAll(/<AbstractText(?: Label="([^"]*)")?[^>]*>([\s\S]*?)<\/AbstractText>/g)) parts.push(m[1] ? `${unesc(m[1])}: ${m[2]}` : m[2]);
    out.push({ id: String(pmid), title, text: parts.join(" ") });
  }
  return out;
}

/** Summary of {@link generateSyntheticPubmed}. */
export interface GenerateResult {
  files: FileResult[];
  entries: number;
  deletes: number;
  words: number;
  seconds: number;
}

/**
 * Write `entries` synthetic PubMed entries as baseline-like `.xml.gz` files in `outDir` (created),
 * files spread over worker threads. Each file ends with a `DeleteCitation` of some of its own PMIDs.
 * @throws Error when `entries` or `perFile` is not a positive integer.
 */
export async function generateSyntheticPubmed(model: SyntheticModel, options: GenerateOptions): Promise<GenerateResult> {
  const o = { perFile: DEFAULT_PER_FILE, seed: 1, deleteShare: 0.001, gzipLevel: 4, ...options };
  if (!Number.isInteger(o.entries) || o.entries <= 0) throw new Error(`--entries must be a positive integer (got ${o.entries})`);
  if (!Number.isInteger(o.perFile) || o.perFile <= 0) throw new Error(`--per-file must be a positive integer (got ${o.perFile})`);
  mkdirSync(o.outDir, { recursive: true });
  const t0 = performance.now();
  const nFiles = Math.ceil(o.entries / o.perFile);
  const jobs = Math.min(nFiles, o.jobs ?? cpus().length);
  const base = { outDir: resolve(o.outDir), entries: o.entries, perFile: o.perFile, seed: o.seed, deleteShare: o.deleteShare, gzipLevel: o.gzipLevel };
  const results: FileResult[] = [];
  const queue = Array.from({ length: nFiles }, (_, i) => i);
  const report = (r: FileResult) => {
    results.push(r);
    o.log?.(`  ${r.file}: ${r.entries} entries, ${r.deletes} deleted (${results.length}/${nFiles} files, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  };
  if (jobs <= 1) {
    for (const f of queue) report(await writeSyntheticFile(model, base, f));
  } else {
    const entry = new URL("./synthetic-pubmed-worker.mjs", import.meta.url);
    await Promise.all(
      Array.from(
        { length: jobs },
        () =>
          new Promise<void>((res, rej) => {
            const worker = new Worker(entry, { workerData: { model, options: base } });
            const next = () => {
              const f = queue.shift();
              if (f === undefined) void worker.terminate().then(() => res());
              else worker.postMessage(f);
            };
            worker.on("message", (m: FileResult | "ready") => {
              if (m !== "ready") report(m);
              next();
            });
            worker.on("error", rej);
          }),
      ),
    );
  }
  results.sort((a, b) => (a.file < b.file ? -1 : 1));
  return { files: results, entries: o.entries, deletes: results.reduce((a, r) => a + r.deletes, 0), words: results.reduce((a, r) => a + r.words, 0), seconds: (performance.now() - t0) / 1000 };
}

/** Runs in a worker thread started by {@link generateSyntheticPubmed}: writes the files it is sent. */
export function runSyntheticWorker(): void {
  const { model, options } = workerData as { model: SyntheticModel; options: Required<Omit<GenerateOptions, "log" | "jobs">> };
  parentPort!.on("message", (f: number) => {
    void writeSyntheticFile(model, options, f).then((r) => parentPort!.postMessage(r));
  });
  parentPort!.postMessage("ready");
}

/** The model from the real data, or from {@link STORED_FIT} when asked or when the data is missing (with the reason logged). */
export async function loadModel(opts: { storedFit?: boolean; seed?: number; log?: (l: string) => void } = {}): Promise<SyntheticModel> {
  if (opts.storedFit) return storedModel();
  let stats: RealStatistics;
  try {
    stats = await fitRealStatistics(opts.seed ?? 1);
  } catch (e) {
    opts.log?.(`real data unavailable (${(e as Error).message.split("\n")[0]}); using the stored fit`);
    return storedModel();
  }
  return buildModel(stats);
}

/** Human-readable lines describing the model (printed by the CLI and the scale bench). */
export function describeModel(m: SyntheticModel): string[] {
  const s = m.stats;
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const langs = new Map<string, number>();
  for (const l of s.languages) langs.set(l, (langs.get(l) ?? 0) + 1);
  const f = (x: number, d = 3) => x.toFixed(d);
  return [
    "SYNTHETIC PubMed: every record is invented (PMIDs from 50,000,001, DOIs 10.5555/synth.<pmid>); statistics fitted on real abstracts, not real citations.",
    `  fitted on: ${s.provenance}`,
    s.abstracts > 0
      ? `  Heaps' law on ${s.heaps.tokens.toLocaleString("en")} real tokens of ${s.abstracts} abstracts: V = ${f(s.heaps.K, 2)}·N^${f(s.heaps.beta)} (R² ${f(s.heaps.r2, 4)}; ${s.heaps.vocabulary} distinct words)`
      : `  Heaps' law (stored constants, no real data read here; fitted once on ${STORED_FIT_SOURCE}): V = ${f(s.heaps.K, 2)}·N^${f(s.heaps.beta)}`,
    `  term frequencies: the ${m.headSize} real words seen ≥ ${HEAD_MIN_COUNT} times keep their real frequencies (${f(m.headMass)} of all draws${s.headWords.length ? `; "${s.headWords[0]}" ${f(s.headCounts[0] / s.heaps.tokens)}` : ""}); the tail is Zipf–Mandelbrot α ${f(m.zipf.alpha, 2)}, q ${f(m.zipf.q, 2)} fitted so that head + tail follow the Heaps line from 10^4 to 10^10 tokens (rms log error ${f(m.zipf.rmsLogError, 4)}); ${s.headWords.length} real words (count ≥ 2) for the top ranks, invented words beyond`,
    `  within-abstract repeats of content words: real ${f(s.repeatRate)} → copy probability ${f(m.copyProbability)} (content draws ${f(m.contentShare)} of all)`,
    `  records without abstract ${f(s.noAbstractShare)}; structured ${f(s.structuredShare)} of abstracts (${s.structuredLayouts.length} real layouts); words: title ${f(mean(s.titleWords), 1)}, unstructured abstract ${f(mean(s.unstructuredWords), 1)}, sentence ${f(mean(s.sentenceWords), 1)} (means)`,
    `  languages ${[...langs.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([l, n]) => `${l} ${f(n / s.languages.length)}`)
      .join(", ")}; MeSH per record ${f(mean(s.meshCounts), 1)} (${new Set(s.meshDescriptors.map((d) => d[0])).size} descriptors); years ${Math.min(...s.years)}–${Math.max(...s.years)}`,
  ];
}

/** The generator's command line. */
export const SYNTHETIC_PUBMED_USAGE =
  "usage: npx tsx experiments/bench/synthetic-pubmed.ts --out <empty dir> --entries <N> [--per-file 30000] [--seed 1] [--jobs <threads; 0 or 1: this thread>] [--delete-share 0.001] [--gzip-level 4] [--stored-fit] [--json]";

/**
 * A whole-number option of the CLI, written in decimal digits (no `0x10`, `1e3` or `2.0`).
 * @throws Error naming the option and the text given when it is not an integer in [min, max].
 */
export function intOption(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = /^-?\d{1,15}$/.test(text.trim()) ? Number(text) : NaN;
  if (!(v >= min && v <= max))
    throw new Error(`--${name} must be an integer${max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : ""} (got ${JSON.stringify(text)})`);
  return v;
}

/**
 * `--delete-share`: a decimal fraction in [0, 1).
 * @throws Error naming the option and the text given otherwise.
 */
function shareOption(text: string): number {
  const v = /^\d*\.?\d+(e-?\d+)?$/i.test(text.trim()) ? Number(text) : NaN;
  if (!(v >= 0 && v < 1)) throw new Error(`--delete-share must be a decimal fraction in [0, 1) (got ${JSON.stringify(text)})`);
  return v;
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      entries: { type: "string" },
      "per-file": { type: "string", default: String(DEFAULT_PER_FILE) },
      seed: { type: "string", default: "1" },
      jobs: { type: "string" },
      "delete-share": { type: "string", default: "0.001" },
      "gzip-level": { type: "string", default: "4" },
      "stored-fit": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(`${SYNTHETIC_PUBMED_USAGE}\nWrites SYNTHETIC baseline-like PubMed .xml.gz files (every record invented; statistics fitted on real abstracts): docs/scale.md.`);
    return;
  }
  if (!values.out || !values.entries) throw new Error(SYNTHETIC_PUBMED_USAGE);
  const log = (l: string) => console.error(l);
  // Every argument is checked before the model is fitted (which takes a while).
  const seed = intOption("seed", values.seed, Number.MIN_SAFE_INTEGER);
  const options = {
    outDir: values.out,
    entries: intOption("entries", values.entries, 1),
    perFile: intOption("per-file", values["per-file"], 1),
    seed,
    jobs: values.jobs !== undefined ? intOption("jobs", values.jobs, 0) : undefined,
    deleteShare: shareOption(values["delete-share"]),
    gzipLevel: intOption("gzip-level", values["gzip-level"], 0, 9),
    log,
  };
  if (existsSync(values.out) && readdirSync(values.out).some((f) => /\.xml(\.gz)?$/.test(f))) throw new Error(`--out ${values.out} already holds XML files; give an empty folder`);
  const t0 = performance.now();
  const model = await loadModel({ storedFit: values["stored-fit"], seed, log });
  for (const l of describeModel(model)) console.error(l);
  console.error(`  model fitted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const r = await generateSyntheticPubmed(model, options);
  const summary = {
    synthetic: true,
    generatorVersion: GENERATOR_VERSION,
    entries: r.entries,
    deletes: r.deletes,
    files: r.files.length,
    words: r.words,
    seconds: r.seconds,
    // From the stored fit: its constants and what they were fitted on (not 0 tokens and R² null).
    heaps: model.stats.abstracts > 0 ? model.stats.heaps : { K: model.stats.heaps.K, beta: model.stats.heaps.beta, fittedOn: STORED_FIT_SOURCE },
    zipf: model.zipf,
    copyProbability: model.copyProbability,
    provenance: model.stats.provenance,
    seed,
  };
  writeFileSync(join(values.out, "SYNTHETIC.json"), JSON.stringify(summary, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(summary, null, 2));
  else
    console.log(
      `wrote ${r.entries.toLocaleString("en")} SYNTHETIC entries (${r.deletes} deleted again) in ${r.files.length} file(s) to ${values.out} in ${r.seconds.toFixed(1)} s (${(r.entries / r.seconds).toFixed(0)} entries/s, ${r.words.toLocaleString("en")} words)`,
    );
}

if (!isMainThread && (workerData as { model?: unknown; options?: unknown } | null)?.options) runSyntheticWorker();
else if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  cli().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
