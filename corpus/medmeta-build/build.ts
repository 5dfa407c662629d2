/**
 * `medsynth datasets build-medmeta`: MedMeta items from any review, following the MedMeta authors'
 * pipeline (MedMeta §3.1):
 *
 * 1. **PMCID** — PMID → PMCID through the PMC ID converter (≤ 200 ids a request); a review without
 *    a PMCID is skipped with the converter's reason;
 * 2. **full text** — efetch `db=pmc` (JATS XML); a review PMC serves without a body (outside the
 *    open-access subset) or without a reference list is skipped with the reason; otherwise its
 *    title, date, conclusion, reference list and included-studies tables are read ({@link
 *    extractReview}, rules in jats.ts);
 * 3. **included studies** — the refs cited in the included-studies tables (else the whole
 *    reference list, marked as such); refs without a PMID are resolved by DOI, ecitmatch or title
 *    ({@link resolveRefs}), else counted as unresolved;
 * 4. **topic** — the review's PubMed record (efetch `db=pubmed`): MeSH major heading or journal
 *    ({@link topicOf});
 * 5. **cache** — each review's result is written to `<cacheDir>/reviews/<PMID>.json` as soon as it
 *    is complete; a re-run reads those and fetches only the rest. Request failures are not
 *    cached: the review is reported as failed (naming its PMID and the URL) and fetched next time;
 * 6. **selection** — feasibility filter and balanced stratified sampling by year and topic
 *    (select.ts);
 * 7. **output** — the kept reviews as MedMeta.csv rows (the bundled file's columns, read by the
 *    MedMeta loader and `datasets prepare medmeta`), and a report (`<out>.report.json`) listing
 *    every review as kept, dropped, skipped or failed, with the reason.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { EutilsError, type EutilsClient } from "../eutils.ts";
import { preparedDataDir } from "../datasets/files.ts";
import { extractReview, parseJats, pmcArticles, type ConclusionSource, type JatsReview } from "./jats.ts";
import { resolveRefs, type PmidSource } from "./resolve-refs.ts";
import { checkFeasibility, FeasibilitySchema, stratifiedSample, type StratifyLevel } from "./select.ts";
import { parseReviewPubmedInfo, topicOf, type ReviewPubmedInfo, type TopicSource } from "./topic.ts";

/** Version of the per-review cache records (a change invalidates older records). */
export const REVIEW_CACHE_VERSION = 1;

/** Default output folder: `<data cache>/prepared/medmeta-build/`. */
export function medmetaBuildDir(): string {
  return preparedDataDir("medmeta-build");
}

/** Options of {@link buildMedMeta}. */
export const BuildMedMetaOptionsSchema = z
  .object({
    /** Review PMIDs (duplicates are reported and kept once). */
    reviews: z.array(z.string().regex(/^\d+$/, "a PMID is digits only")).min(1),
    /** Output CSV (default `<medmetaBuildDir()>/MedMeta.csv`); the report goes beside it as `<name>.report.json`. */
    out: z.string().optional(),
    /** Per-review cache folder (default `<folder of out>/cache`). */
    cacheDir: z.string().optional(),
    /** Ignore cached reviews and fetch everything again. */
    refresh: z.boolean().default(false),
    feasibility: FeasibilitySchema.default({ minRefs: 7, maxRefs: 25, maxUnresolved: 0, requireStudiesTable: true }),
    /** Sample size after the feasibility filter (default: keep every feasible review). */
    sample: z.number().int().min(1).optional(),
    /** seedrandom seed of the sample. */
    seed: z.string().default("medmeta-build-v1"),
    /** Stratification levels, outer first. */
    stratify: z.array(z.enum(["year", "topic"])).default(["year", "topic"]),
    /** Topic rule (topic.ts). */
    topic: z.enum(["mesh", "journal"]).default("mesh"),
  })
  .strict();
/** Input of {@link BuildMedMetaOptionsSchema}. */
export type BuildMedMetaOptions = z.input<typeof BuildMedMetaOptionsSchema>;

/** One included study of a review. */
export interface IncludedStudy {
  refId: string;
  label: string | null;
  pmid: string | null;
  via: PmidSource | null;
}

/** What is known about a fetched review (the cache record's `review`). */
export interface BuiltReview {
  pmid: string;
  pmcid: string;
  title: string;
  journal: string | null;
  pubDate: JatsReview["pubDate"];
  conclusion: { text: string; source: ConclusionSource; heading: string } | null;
  /** Where the included studies come from: the included-studies tables, or (no table) the whole reference list. */
  basis: "studies-table" | "reference-list";
  studyTables: { caption: string; method: "xref" | "author-year"; refs: number }[];
  refsInList: number;
  included: IncludedStudy[];
  pubmed: ReviewPubmedInfo | null;
}

/** A per-review cache record. */
export interface ReviewCacheRecord {
  version: number;
  pmid: string;
  status: "fetched" | "skipped";
  /** Why the review was skipped (no PMCID, not open access, no reference list, …). */
  reason: string | null;
  pmcid: string | null;
  review: BuiltReview | null;
}

/** One review in the report. */
export interface BuildReviewOutcome {
  pmid: string;
  status: "kept" | "dropped" | "skipped" | "failed";
  reason: string | null;
  pmcid: string | null;
  year: number | null;
  topic: string | null;
  includedPmids: number | null;
  unresolved: number | null;
  /** The row number in the CSV (kept reviews). */
  row: number | null;
  /** Read from the cache instead of fetched. */
  cached: boolean;
}

/** What {@link buildMedMeta} did (also written as the report JSON). */
export interface BuildMedMetaReport {
  out: string;
  reportPath: string;
  cacheDir: string;
  requested: number;
  duplicates: string[];
  counts: Record<BuildReviewOutcome["status"], number>;
  fetched: number;
  fromCache: number;
  sample: { n: number | null; seed: string; stratify: StratifyLevel[]; topic: TopicSource; strata: Record<string, number> };
  feasibility: z.output<typeof FeasibilitySchema>;
  reviews: BuildReviewOutcome[];
}

/** The columns of the bundled MedMeta.csv, then the build's own extras (the loader ignores extra columns). */
export const MEDMETA_CSV_COLUMNS = [
  "Number",
  "Meta Analysis Name",
  "URL",
  "PMID",
  "Conclusion",
  "References",
  "Date",
  "Number of refs",
  "PMCID",
  "Year",
  "Topic",
  "Conclusion Source",
  "Included From",
] as const;

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** The bundled file's date form, "November 30, 2024"; "November 2024" or "2024" when day or month is unknown; "" when no date. */
export function formatMedMetaDate(d: JatsReview["pubDate"]): string {
  if (!d) return "";
  if (d.month && d.month >= 1 && d.month <= 12) return d.day ? `${MONTHS[d.month - 1]} ${d.day}, ${d.year}` : `${MONTHS[d.month - 1]} ${d.year}`;
  return String(d.year);
}

/** Unique included-study PMIDs of a review, in first-citation order. */
export function includedPmidsOf(r: BuiltReview): string[] {
  return [...new Set(r.included.flatMap((s) => (s.pmid ? [s.pmid] : [])))];
}

/** Publication year: the JATS date, else the PubMed record's. */
export const yearOfReview = (r: BuiltReview): number | null => r.pubDate?.year ?? r.pubmed?.year ?? null;

/** One MedMeta.csv row of a kept review. */
export function medmetaRow(r: BuiltReview, number: number, topic: string): Record<(typeof MEDMETA_CSV_COLUMNS)[number], string> {
  const pmids = includedPmidsOf(r);
  return {
    Number: String(number),
    "Meta Analysis Name": r.title,
    URL: `https://pmc.ncbi.nlm.nih.gov/articles/${r.pmcid}/`,
    PMID: r.pmid,
    Conclusion: r.conclusion?.text ?? "",
    References: pmids.join(", "),
    Date: formatMedMetaDate(r.pubDate) || String(r.pubmed?.year ?? ""),
    "Number of refs": String(pmids.length),
    PMCID: r.pmcid,
    Year: String(yearOfReview(r) ?? ""),
    Topic: topic,
    "Conclusion Source": r.conclusion?.source ?? "",
    "Included From": r.basis,
  };
}

function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Path of a review's cache record. */
export const reviewCachePath = (cacheDir: string, pmid: string) => join(cacheDir, "reviews", `${pmid}.json`);

/** Read a cache record; null when absent, of another version or unreadable (then it is fetched again). */
export function readReviewCache(cacheDir: string, pmid: string): ReviewCacheRecord | null {
  const p = reviewCachePath(cacheDir, pmid);
  if (!existsSync(p)) return null;
  try {
    const rec = JSON.parse(readFileSync(p, "utf8")) as ReviewCacheRecord;
    return rec.version === REVIEW_CACHE_VERSION && rec.pmid === pmid ? rec : null;
  } catch {
    return null;
  }
}

/** Step 1: PMID → PMCID. @returns PMCIDs by PMID, and skip records for reviews without one. */
async function convertIds(client: EutilsClient, pmids: readonly string[]): Promise<{ pmcOf: Map<string, string>; skipped: ReviewCacheRecord[] }> {
  const pmcOf = new Map<string, string>();
  const skipped: ReviewCacheRecord[] = [];
  for (const r of await client.idconv(pmids)) {
    if (r.pmcid) pmcOf.set(r.pmid, r.pmcid.toUpperCase().startsWith("PMC") ? r.pmcid.toUpperCase() : `PMC${r.pmcid}`);
    else skipped.push({ version: REVIEW_CACHE_VERSION, pmid: r.pmid, status: "skipped", reason: `no PMCID (PMC ID converter: ${r.error ?? "no record"})`, pmcid: null, review: null });
  }
  return { pmcOf, skipped };
}

/** Step 2: efetch db=pmc for a batch. @returns the extracted article per PMCID. @throws EutilsError naming the reviews and the URL. */
async function fetchFullTexts(client: EutilsClient, pmcids: readonly string[], who: string): Promise<Map<string, JatsReview>> {
  const out = new Map<string, JatsReview>();
  const url = `${client.config.baseUrl.replace(/\/?$/, "/")}efetch.fcgi?db=pmc&id=${pmcids.map((p) => p.replace(/^PMC/, "")).join(",")}`;
  for await (const xml of client.efetchPmc(pmcids)) {
    let articles;
    try {
      articles = pmcArticles(parseJats(xml));
    } catch (err) {
      throw new EutilsError(`${who}: efetch db=pmc ${url}: response is not XML (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`, null);
    }
    for (const a of articles) {
      const r = extractReview(a);
      // One id asked, one article back without an article-id: it is the one asked for.
      const pmcid = r.pmcid ?? (pmcids.length === 1 && articles.length === 1 ? pmcids[0] : null);
      if (pmcid) out.set(pmcid, { ...r, pmcid });
    }
  }
  return out;
}

/** Steps 3–4 for one review with full text: included studies (resolved) and nothing else fetched. */
async function includedStudies(client: EutilsClient, j: JatsReview): Promise<Pick<BuiltReview, "basis" | "studyTables" | "included">> {
  const tableIds = [...new Set(j.studyTables.flatMap((t) => t.refIds))];
  const basis = tableIds.length ? "studies-table" : "reference-list";
  const byId = new Map(j.refs.map((r) => [r.id, r]));
  const refs = basis === "studies-table" ? tableIds.map((id) => byId.get(id)!) : j.refs;
  const resolved = await resolveRefs(client, refs);
  return {
    basis,
    studyTables: j.studyTables.map((t) => ({ caption: t.caption, method: t.method, refs: t.refIds.length })),
    included: resolved.map((r, i) => ({ refId: r.refId, label: refs[i].label, pmid: r.pmid, via: r.via })),
  };
}

/**
 * Fetch the reviews not in the cache (steps 1–5), writing each finished one to the cache.
 * @returns failures by PMID (message names the PMID and the URL); the rest are in the cache.
 */
async function fetchMissing(client: EutilsClient, pmids: readonly string[], cacheDir: string, batchSize: number, log: (l: string) => void): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  const save = (rec: ReviewCacheRecord) => writeAtomically(reviewCachePath(cacheDir, rec.pmid), `${JSON.stringify(rec, null, 1)}\n`);
  let conv: Awaited<ReturnType<typeof convertIds>>;
  try {
    conv = await convertIds(client, pmids);
  } catch (err) {
    for (const p of pmids) failed.set(p, `review ${p}: ${err instanceof Error ? err.message : String(err)}`);
    return failed;
  }
  conv.skipped.forEach(save);
  const withPmc = pmids.filter((p) => conv.pmcOf.has(p));
  log(`build-medmeta: ${withPmc.length} of ${pmids.length} review(s) have a PMCID`);
  /** One batch: full texts + PubMed records; when a request fails, a batch of several reviews is retried one review at a time so only the bad one fails. */
  const runBatch = async (batch: string[]): Promise<void> => {
    const who = `review${batch.length > 1 ? "s" : ""} ${batch.map((p) => `${p} (${conv.pmcOf.get(p)})`).join(", ")}`;
    let texts: Map<string, JatsReview>;
    const pubmed = new Map<string, ReviewPubmedInfo>();
    try {
      texts = await fetchFullTexts(
        client,
        batch.map((p) => conv.pmcOf.get(p)!),
        who,
      );
      for await (const xml of client.efetchXml({ ids: batch })) for (const [k, v] of parseReviewPubmedInfo(xml)) pubmed.set(k, v);
    } catch (err) {
      if (batch.length > 1) {
        for (const p of batch) await runBatch([p]);
        return;
      }
      failed.set(batch[0], `${who}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    for (const pmid of batch) await finishReview(pmid, conv.pmcOf.get(pmid)!, texts.get(conv.pmcOf.get(pmid)!), pubmed.get(pmid) ?? null);
  };
  /** Steps 3–5 for one review: skip reasons, included studies, cache record. */
  const finishReview = async (pmid: string, pmcid: string, j: JatsReview | undefined, pubmed: ReviewPubmedInfo | null): Promise<void> => {
    const skip = (reason: string) => save({ version: REVIEW_CACHE_VERSION, pmid, status: "skipped", reason, pmcid, review: null });
    if (!j) return skip(`efetch db=pmc returned no article for ${pmcid}`);
    if (!j.hasBody) return skip(`not in the PMC open-access subset: efetch db=pmc returned no full text for ${pmcid}`);
    if (!j.hasRefList) return skip(`no reference list in the PMC XML of ${pmcid}`);
    try {
      const inc = await includedStudies(client, j);
      const review: BuiltReview = { pmid, pmcid, title: j.title, journal: j.journal, pubDate: j.pubDate, conclusion: j.conclusion, refsInList: j.refs.length, ...inc, pubmed };
      save({ version: REVIEW_CACHE_VERSION, pmid, status: "fetched", reason: null, pmcid, review });
    } catch (err) {
      failed.set(pmid, `review ${pmid} (${pmcid}): resolving included studies: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  for (let i = 0; i < withPmc.length; i += batchSize) {
    await runBatch(withPmc.slice(i, i + batchSize));
    log(`build-medmeta: ${Math.min(i + batchSize, withPmc.length)} of ${withPmc.length} full text(s) read`);
  }
  return failed;
}

/**
 * Build MedMeta rows from review PMIDs (steps in the file header).
 * @param client E-utilities client (base URL and ID-converter URL may point to local fakes).
 * @param options {@link BuildMedMetaOptionsSchema}.
 * @param log progress lines.
 * @returns the report (also written to `<out>.report.json`); the CSV holds the kept reviews.
 * @throws ZodError on invalid options; Error when minRefs > maxRefs. Request failures do not throw:
 *   those reviews are reported as failed and fetched again on the next run.
 */
export async function buildMedMeta(client: EutilsClient, options: BuildMedMetaOptions, log: (line: string) => void = () => {}): Promise<BuildMedMetaReport> {
  const opts = BuildMedMetaOptionsSchema.parse(options);
  const feas = opts.feasibility;
  if (feas.minRefs > feas.maxRefs) throw new Error(`build-medmeta: --min-refs ${feas.minRefs} > --max-refs ${feas.maxRefs}`);
  const out = resolve(opts.out ?? join(medmetaBuildDir(), "MedMeta.csv"));
  const reportPath = out.replace(/\.csv$/i, "") + ".report.json";
  const cacheDir = resolve(opts.cacheDir ?? join(dirname(out), "cache"));
  const pmids = [...new Set(opts.reviews)];
  const duplicates = [...new Set(opts.reviews.filter((p, i) => opts.reviews.indexOf(p) !== i))];

  const cachedBefore = new Set(opts.refresh ? [] : pmids.filter((p) => readReviewCache(cacheDir, p)));
  const toFetch = pmids.filter((p) => !cachedBefore.has(p));
  log(`build-medmeta: ${pmids.length} review(s), ${cachedBefore.size} from the cache, ${toFetch.length} to fetch`);
  const failed = toFetch.length ? await fetchMissing(client, toFetch, cacheDir, client.config.batchSize, log) : new Map<string, string>();

  const outcomes = new Map<string, BuildReviewOutcome>();
  const feasible: { review: BuiltReview; topic: string }[] = [];
  for (const pmid of pmids) {
    const base = { pmid, pmcid: null, year: null, topic: null, includedPmids: null, unresolved: null, row: null, cached: cachedBefore.has(pmid) };
    if (failed.has(pmid)) {
      outcomes.set(pmid, { ...base, status: "failed", reason: failed.get(pmid)! });
      continue;
    }
    const rec = readReviewCache(cacheDir, pmid);
    if (!rec) {
      outcomes.set(pmid, { ...base, status: "failed", reason: `review ${pmid}: no cache record after fetching (${reviewCachePath(cacheDir, pmid)})` });
      continue;
    }
    if (rec.status === "skipped" || !rec.review) {
      outcomes.set(pmid, { ...base, pmcid: rec.pmcid, status: "skipped", reason: rec.reason });
      continue;
    }
    const r = rec.review;
    const topic = topicOf(r.pubmed, opts.topic, r.journal);
    const included = includedPmidsOf(r).length;
    const unresolved = r.included.filter((s) => !s.pmid).length;
    const common = { ...base, pmcid: r.pmcid, year: yearOfReview(r), topic, includedPmids: included, unresolved };
    const why = checkFeasibility({ hasConclusion: !!r.conclusion, hasStudiesTable: r.basis === "studies-table", includedPmids: included, unresolved }, feas);
    if (why) outcomes.set(pmid, { ...common, status: "dropped", reason: why });
    else {
      outcomes.set(pmid, { ...common, status: "kept", reason: null });
      feasible.push({ review: r, topic });
    }
  }

  const n = opts.sample ?? feasible.length;
  const sampled = stratifiedSample(feasible, (f) => ({ year: yearOfReview(f.review), topic: f.topic }), n, opts.seed, opts.stratify);
  for (const d of sampled.dropped)
    Object.assign(outcomes.get(d.review.pmid)!, { status: "dropped", reason: `not drawn in the stratified sample of ${n} (seed "${opts.seed}", by ${opts.stratify.join(", ") || "nothing"})` });
  const rows = sampled.kept.map((k, i) => {
    outcomes.get(k.review.pmid)!.row = i + 1;
    return medmetaRow(k.review, i + 1, k.topic);
  });
  mkdirSync(dirname(out), { recursive: true });
  writeAtomically(out, stringify(rows, { header: true, columns: [...MEDMETA_CSV_COLUMNS] }));

  const reviews = pmids.map((p) => outcomes.get(p)!);
  const count = (s: BuildReviewOutcome["status"]) => reviews.filter((r) => r.status === s).length;
  const report: BuildMedMetaReport = {
    out,
    reportPath,
    cacheDir,
    requested: opts.reviews.length,
    duplicates,
    counts: { kept: count("kept"), dropped: count("dropped"), skipped: count("skipped"), failed: count("failed") },
    fetched: toFetch.length - failed.size,
    fromCache: cachedBefore.size,
    sample: { n: opts.sample ?? null, seed: opts.seed, stratify: opts.stratify, topic: opts.topic, strata: sampled.strata },
    feasibility: feas,
    reviews,
  };
  writeAtomically(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/** Review PMIDs from a file: one per line; blank lines and `#` comments ignored. @throws Error naming the file and line of a non-PMID. */
export function readReviewsFile(path: string): string[] {
  const out: string[] = [];
  readFileSync(path, "utf8")
    .split(/\r?\n/)
    .forEach((line, i) => {
      const t = line.replace(/#.*/, "").trim();
      if (!t) return;
      if (!/^\d+$/.test(t)) throw new Error(`${path}:${i + 1}: expected one PMID per line (digits), got "${t}"`);
      out.push(t);
    });
  return out;
}
