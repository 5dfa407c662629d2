/**
 * build-medmeta: JATS extraction of a hand-written review (exact conclusion, date, included-study
 * PMIDs), reference resolution, the feasibility filter and stratified sampling with hand-computed
 * expectations, and whole builds against the fake E-utilities/PMC server (skips with reasons,
 * failures naming PMID and URL, resume from the cache, rows the MedMeta loader reads).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seedrandom from "seedrandom";
import { createEutilsClient } from "../../corpus/eutils.ts";
import { extractReview, parseJats, pmcArticles, INCLUDED_TABLE_RE, EXCLUDED_TABLE_RE, type JatsReview } from "../../corpus/medmeta-build/jats.ts";
import { resolveRefs } from "../../corpus/medmeta-build/resolve-refs.ts";
import { allocateEvenly, checkFeasibility, stratifiedSample } from "../../corpus/medmeta-build/select.ts";
import { parseReviewPubmedInfo, topicOf } from "../../corpus/medmeta-build/topic.ts";
import { buildMedMeta, formatMedMetaDate, readReviewsFile, type BuildMedMetaReport } from "../../corpus/medmeta-build/build.ts";
import { loadMedMeta } from "../../corpus/datasets/medmeta.ts";
import { pubmedArticleXml, startFakeEutils, type FakeEutilsServer, type FakePmcOptions } from "../helpers/fake-eutils-server.ts";
import { jatsReview, reviewPubmedEntry, STATIN_REVIEW, STATIN_REVIEW_JATS, type FakeReviewSpec } from "./medmeta-build-fixtures.ts";

const extract = (xml: string): JatsReview => extractReview(pmcArticles(parseJats(`<pmc-articleset>${xml}</pmc-articleset>`))[0]);
const pmids = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));

describe("JATS extraction of a hand-written review", () => {
  const r = extract(STATIN_REVIEW_JATS);

  it("reads ids, title, journal and the electronic publication date", () => {
    expect(r.pmid).toBe(STATIN_REVIEW.pmid);
    expect(r.pmcid).toBe(STATIN_REVIEW.pmcid);
    expect(r.title).toBe(STATIN_REVIEW.title);
    expect(r.journal).toBe("Journal of Test Neurology");
    expect(r.pubDate).toEqual({ year: 2023, month: 5, day: 14 });
    expect(formatMedMetaDate(r.pubDate)).toBe("May 14, 2023");
    expect(r.hasBody && r.hasRefList).toBe(true);
  });

  it("takes the conclusion from the main abstract's Conclusions section (not the graphical abstract, not the Discussion)", () => {
    expect(r.conclusion).toEqual({ text: STATIN_REVIEW.conclusion, source: "abstract", heading: "Conclusions" });
  });

  it("finds the included-studies table and its cited refs in table order (not caption, footnote or other tables)", () => {
    expect(r.studyTables).toEqual([
      { id: "T1", caption: "Table 1 Characteristics of the included studies (quality rated with the scale of 1)", refIds: ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10"], method: "xref" },
    ]);
    expect(r.refs).toHaveLength(11);
    const byId = Object.fromEntries(r.refs.map((x) => [x.id, x]));
    expect(byId.B4.pmid).toBe("31000004"); // mixed-citation pub-id
    expect(byId.B5.pmid).toBe("31000005"); // PubMed ext-link
    expect(byId.B7).toMatchObject({ pmid: null, doi: STATIN_REVIEW.doi });
    expect(byId.B8).toMatchObject({ pmid: null, journal: "Stroke", year: "2015", volume: "46", firstPage: "1201", firstAuthor: "Garcia" });
    expect(byId.B9).toMatchObject({ pmid: null, title: STATIN_REVIEW.b9Title, journal: null });
    expect(byId.B10).toMatchObject({ pmid: null, doi: null, title: null });
  });

  it("falls back to a body Conclusions section, then a concluding Discussion paragraph, else none", () => {
    const spec = (conclusion: FakeReviewSpec["conclusion"]): FakeReviewSpec => ({ pmid: "1", pmcid: "PMC1", year: 2020, included: ["10"], conclusion });
    expect(extract(jatsReview(spec("body"))).conclusion).toEqual({ text: "Conclusion of review 1.", source: "body-section", heading: "5. Conclusions" });
    expect(extract(jatsReview(spec("discussion"))).conclusion).toEqual({ text: "In summary, Conclusion of review 1.", source: "discussion-paragraph", heading: "Discussion" });
    expect(extract(jatsReview(spec("none"))).conclusion).toBeNull();
    expect(extract(jatsReview(spec("abstract"))).conclusion).toEqual({ text: "Conclusion of review 1.", source: "abstract", heading: "Authors' conclusions" });
  });

  it("sees no full text where PMC says the publisher withholds it", () => {
    const xml = `<article><front><article-meta><article-id pub-id-type="pmc">123</article-id></article-meta></front><body><!--The publisher of this article does not allow downloading of the full text in XML form.--></body></article>`;
    expect(extract(xml)).toMatchObject({ pmcid: "PMC123", hasBody: false, hasRefList: false, refs: [] });
  });

  it("reads an inline 'Conclusions:' label of an unstructured abstract", () => {
    const xml = `<article><front><article-meta><abstract><p>We pooled trials. <bold>Conclusions:</bold> Drug X lowers pressure.</p><p>Conclusions: Drug X is safe.</p></abstract></article-meta></front></article>`;
    expect(extract(xml).conclusion).toEqual({ text: "Drug X is safe.", source: "abstract", heading: "Conclusions" });
  });

  it("matches a table without reference links by first author and year", () => {
    const xml = jatsReview({ pmid: "2", pmcid: "PMC2", year: 2020, included: ["11", "12", "13"] }).replace(/<xref ref-type="bibr" rid="R(\d)">\d<\/xref>/g, (_, i) =>
      i === "1" ? "Author1 et al. (2010)" : i === "3" ? "Author3 2010" : "Someone 2011",
    );
    expect(extract(xml).studyTables.map((t) => [t.refIds, t.method])).toEqual([[["R1", "R3"], "author-year"]]);
  });

  it("recognises included-studies captions and leaves out excluded/ongoing ones and other tables", () => {
    const isIncluded = (c: string) => INCLUDED_TABLE_RE.test(c) && !EXCLUDED_TABLE_RE.test(c);
    expect(
      ["Characteristics of included studies", "Main characteristics of the included trials", "Study characteristics", "Summary of included studies", "Table 2 Eligible RCTs"].map(isIncluded),
    ).toEqual([true, true, true, true, true]);
    expect(["Characteristics of excluded studies", "Characteristics of ongoing studies", "Baseline characteristics of patients", "Pooled estimates", "Risk of bias"].map(isIncluded)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("topic from the review's PubMed record", () => {
  const xml = [reviewPubmedEntry("5", 2021, "Stroke"), reviewPubmedEntry("6", 2022, null, "Brain Res")].map(pubmedArticleXml).join("");
  const info = parseReviewPubmedInfo(`<PubmedArticleSet>${xml}</PubmedArticleSet>`);

  it("takes the first MeSH major heading, else the journal", () => {
    expect(info.get("5")).toEqual({ pmid: "5", meshMajor: ["Stroke"], journal: "Generated Journal", year: 2021 });
    expect(topicOf(info.get("5")!, "mesh")).toBe("Stroke");
    expect(topicOf(info.get("6")!, "mesh")).toBe("journal: Brain Res");
    expect(topicOf(info.get("5")!, "journal")).toBe("Generated Journal");
    expect(topicOf(null, "mesh", "J From JATS")).toBe("journal: J From JATS");
    expect(topicOf(null, "mesh")).toBe("unknown");
  });

  it("counts a descriptor as major when one of its qualifiers is", () => {
    const q = `<PubmedArticle><MedlineCitation><PMID>7</PMID><Article><Journal><Title>J</Title></Journal></Article><MeshHeadingList><MeshHeading><DescriptorName MajorTopicYN="N">Humans</DescriptorName></MeshHeading><MeshHeading><DescriptorName MajorTopicYN="N">Hypertension</DescriptorName><QualifierName MajorTopicYN="Y">drug therapy</QualifierName></MeshHeading></MeshHeadingList></MedlineCitation></PubmedArticle>`;
    expect(parseReviewPubmedInfo(q).get("7")!.meshMajor).toEqual(["Hypertension"]);
  });
});

describe("feasibility filter", () => {
  const ok = { hasConclusion: true, hasStudiesTable: true, includedPmids: 7, unresolved: 0 };
  it("keeps 7–25 included PMIDs with a table, a conclusion and none unresolved (MedMeta defaults)", () => {
    expect(checkFeasibility(ok)).toBeNull();
    expect(checkFeasibility({ ...ok, includedPmids: 25 })).toBeNull();
    expect(checkFeasibility({ ...ok, includedPmids: 6 })).toBe("6 included-study PMIDs < 7");
    expect(checkFeasibility({ ...ok, includedPmids: 26 })).toBe("26 included-study PMIDs > 25");
    expect(checkFeasibility({ ...ok, unresolved: 1 })).toBe("1 included study has no PMID (at most 0 allowed)");
    expect(checkFeasibility({ ...ok, hasStudiesTable: false })).toMatch(/^no included-studies table/);
    expect(checkFeasibility({ ...ok, hasConclusion: false })).toMatch(/^no explicit conclusion/);
  });
  it("is configurable", () => {
    expect(checkFeasibility({ ...ok, includedPmids: 3, unresolved: 2, hasStudiesTable: false }, { minRefs: 3, maxUnresolved: 2, requireStudiesTable: false })).toBeNull();
    expect(() => checkFeasibility(ok, { minRefs: 9, maxRefs: 8 })).toThrow(/minRefs 9 > maxRefs 8/);
  });
});

describe("balanced stratified sampling", () => {
  it("allocates evenly, capped by stratum size (hand-computed)", () => {
    const rng = seedrandom("x");
    expect(allocateEvenly([4, 2, 6], 6, rng)).toEqual([2, 2, 2]);
    expect(allocateEvenly([5, 1], 4, rng)).toEqual([3, 1]);
    expect(allocateEvenly([3, 3], 10, rng)).toEqual([3, 3]);
    expect(allocateEvenly([1, 0, 8], 5, rng)).toEqual([1, 0, 4]);
    // 7 = 2 + 2 + 2 + one extra for a stratum with more than 2 (index 0 or 2, by the seed).
    for (const seed of ["a", "b", "c", "d"]) {
      const q = allocateEvenly([4, 2, 6], 7, seedrandom(seed));
      expect(q[1]).toBe(2);
      expect([q[0], q[2]].sort()).toEqual([2, 3]);
    }
  });

  // 10 reviews: 2019 A,A,B,B · 2020 A,B · 2021 A,A,A,B.
  const items = [
    ["a", 2019, "A"],
    ["b", 2019, "A"],
    ["c", 2019, "B"],
    ["d", 2019, "B"],
    ["e", 2020, "A"],
    ["f", 2020, "B"],
    ["g", 2021, "A"],
    ["h", 2021, "A"],
    ["i", 2021, "A"],
    ["j", 2021, "B"],
  ] as const;
  const key = (t: (typeof items)[number]) => ({ year: t[1], topic: t[2] });
  const names = (xs: readonly (typeof items)[number][]) => xs.map((t) => t[0]);

  it("n = 6 takes 2 per year and, within each year, 1 per topic", () => {
    const s = stratifiedSample(items, key, 6, "seed-1");
    expect(s.strata).toEqual({ "2019/A": 1, "2019/B": 1, "2020/A": 1, "2020/B": 1, "2021/A": 1, "2021/B": 1 });
    const kept: string[] = names(s.kept);
    expect(kept).toHaveLength(6);
    for (const must of ["e", "f", "j"]) expect(kept).toContain(must);
    for (const group of [
      ["a", "b"],
      ["c", "d"],
      ["g", "h", "i"],
    ])
      expect(group.filter((x) => kept.includes(x))).toHaveLength(1);
    expect(names(s.dropped).sort()).toEqual(
      names(items)
        .filter((x) => !kept.includes(x))
        .sort(),
    );
    expect(names(stratifiedSample(items, key, 6, "seed-1").kept)).toEqual(kept);
  });

  it("draws within a cell by the seed (each of g, h, i is drawn for some seed)", () => {
    const seen = new Set<string>();
    for (let k = 0; k < 30; k++) for (const x of names(stratifiedSample(items, key, 6, `s${k}`).kept)) if ("ghi".includes(x)) seen.add(x);
    expect([...seen].sort()).toEqual(["g", "h", "i"]);
  });

  it("by year only: n = 3 takes one review per year; n ≥ size keeps all", () => {
    const s = stratifiedSample(items, key, 3, "y", ["year"]);
    expect(s.strata).toEqual({ "2019": 1, "2020": 1, "2021": 1 });
    expect(stratifiedSample(items, key, 50, "y").kept).toHaveLength(10);
  });
});

/** Fake PMC for the build tests: the hand-written review plus generated ones. */
function fakePmc(): { pmc: FakePmcOptions; specs: FakeReviewSpec[]; topics: Record<string, string> } {
  const specs: FakeReviewSpec[] = [
    { pmid: "40000002", pmcid: "PMC40000002", year: 2020, included: pmids(50000000, 8), frontOnly: true },
    { pmid: "40000003", pmcid: "PMC40000003", year: 2020, included: pmids(50000100, 6) },
    { pmid: "40000004", pmcid: "PMC40000004", year: 2020, included: pmids(50000200, 26) },
    { pmid: "40000005", pmcid: "PMC40000005", year: 2021, included: pmids(50000300, 8), noTable: true },
    { pmid: "40000006", pmcid: "PMC40000006", year: 2021, included: pmids(50000400, 8), conclusion: "none" },
    { pmid: "40000007", pmcid: "PMC40000007", year: 2021, included: pmids(50000500, 7), conclusion: "body" },
    { pmid: "40000008", pmcid: "PMC40000008", year: 2022, included: pmids(50000600, 9), conclusion: "discussion" },
    { pmid: "40000009", pmcid: "PMC40000009", year: 2022, included: [...pmids(50000700, 9), null] },
  ];
  const topics: Record<string, string> = { "40000007": "Hypertension", "40000008": "Stroke", "40000009": "Stroke", [STATIN_REVIEW.pmid]: "Stroke" };
  const articles: Record<string, string> = { [STATIN_REVIEW.pmcid]: STATIN_REVIEW_JATS };
  for (const s of specs) articles[s.pmcid] = jatsReview(s);
  const pmcids: Record<string, string> = { [STATIN_REVIEW.pmid]: STATIN_REVIEW.pmcid };
  for (const s of specs) pmcids[s.pmid] = s.pmcid;
  return {
    specs,
    topics,
    pmc: {
      pmcids,
      articles,
      citations: { [STATIN_REVIEW.citationKey]: "31000008" },
      terms: { [`${STATIN_REVIEW.doi}[doi]`]: ["31000007"], [`"${STATIN_REVIEW.b9Title}"[ti]`]: ["31000009"] },
      failing: [],
    },
  };
}

describe("reference resolution (fake E-utilities)", () => {
  let fake: FakeEutilsServer;
  beforeAll(async () => {
    fake = await startFakeEutils([], { pmc: fakePmc().pmc });
  });
  afterAll(() => fake.close());

  it("resolves by DOI, ecitmatch and title; leaves a ref without identifiers unresolved", async () => {
    const r = extract(STATIN_REVIEW_JATS);
    const refs = r.studyTables[0].refIds.map((id) => r.refs.find((x) => x.id === id)!);
    const res = await resolveRefs(createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10 }), refs);
    expect(res.map((x) => [x.refId, x.pmid, x.via])).toEqual([
      ["B2", "31000002", "pub-id"],
      ["B3", "31000003", "pub-id"],
      ["B4", "31000004", "pub-id"],
      ["B5", "31000005", "pub-id"],
      ["B6", "31000006", "pub-id"],
      ["B7", "31000007", "doi"],
      ["B8", "31000008", "ecitmatch"],
      ["B9", "31000009", "title"],
      ["B10", null, null],
    ]);
    const cit = fake.requests.find((q) => q.endpoint === "ecitmatch.cgi")!;
    expect(cit.params.bdata).toBe("Stroke|2015|46|1201|Garcia|B8|");
  });
});

describe("PMC ID converter client (fake)", () => {
  let fake: FakeEutilsServer;
  const pmcids = Object.fromEntries(pmids(60000000, 201).map((p) => [p, `PMC${p}`]));
  beforeAll(async () => {
    fake = await startFakeEutils([], { pmc: { pmcids, articles: {} } });
  });
  afterAll(() => fake.close());

  it("asks at most 200 ids a request, with tool/email and format=json, and keeps the input order", async () => {
    const asked = [...pmids(60000000, 201), "1"];
    const recs = await createEutilsClient({ baseUrl: fake.url, idconvUrl: fake.idconvUrl, requestsPerSecond: 10, email: "a@b.org" }).idconv(asked);
    const calls = fake.requests.filter((q) => q.params.idtype === "pmid");
    expect(calls.map((q) => q.params.ids.split(",").length)).toEqual([200, 2]);
    expect(calls[0].params).toMatchObject({ tool: "medsynth", email: "a@b.org", format: "json" });
    expect(recs.map((r) => r.pmid)).toEqual(asked);
    expect(recs[0]).toEqual({ pmid: "60000000", pmcid: "PMC60000000", doi: "10.9999/fake.60000000", error: null });
    expect(recs[201]).toEqual({ pmid: "1", pmcid: null, doi: null, error: "Identifier not found in PMC" });
  });
});

describe("buildMedMeta against the fake E-utilities/PMC server", () => {
  let fake: FakeEutilsServer;
  let fx: ReturnType<typeof fakePmc>;
  let dir: string;
  let first: BuildMedMetaReport;
  const NOT_IN_PMC = "40000001";
  const client = () => createEutilsClient({ baseUrl: fake.url, idconvUrl: fake.idconvUrl, requestsPerSecond: 10, maxRetries: 0 });
  const reviews = () => [STATIN_REVIEW.pmid, NOT_IN_PMC, ...fx.specs.map((s) => s.pmid)];

  beforeAll(async () => {
    fx = fakePmc();
    const entries = [STATIN_REVIEW.pmid, ...fx.specs.map((s) => s.pmid)].map((p) =>
      reviewPubmedEntry(p, p === STATIN_REVIEW.pmid ? 2023 : fx.specs.find((s) => s.pmid === p)!.year, fx.topics[p] ?? null),
    );
    fx.pmc.failing!.push("PMC40000009");
    fake = await startFakeEutils(entries, { pmc: fx.pmc });
    dir = mkdtempSync(join(tmpdir(), "medmeta-build-"));
    first = await buildMedMeta(client(), { reviews: [...reviews(), STATIN_REVIEW.pmid], out: join(dir, "rows.csv"), feasibility: { maxUnresolved: 1 } });
  });
  afterAll(() => fake.close());

  it("reports every review as kept, dropped, skipped or failed with its reason", () => {
    const by = Object.fromEntries(first.reviews.map((r) => [r.pmid, r]));
    expect(first.duplicates).toEqual([STATIN_REVIEW.pmid]);
    expect(first.counts).toEqual({ kept: 3, dropped: 4, skipped: 2, failed: 1 });
    expect(by[NOT_IN_PMC]).toMatchObject({ status: "skipped", reason: "no PMCID (PMC ID converter: Identifier not found in PMC)" });
    expect(by["40000002"]).toMatchObject({ status: "skipped", reason: "not in the PMC open-access subset: efetch db=pmc returned no full text for PMC40000002" });
    expect(by["40000003"]).toMatchObject({ status: "dropped", reason: "6 included-study PMIDs < 7" });
    expect(by["40000004"]).toMatchObject({ status: "dropped", reason: "26 included-study PMIDs > 25" });
    expect(by["40000005"].reason).toMatch(/^no included-studies table/);
    expect(by["40000006"].reason).toMatch(/^no explicit conclusion/);
    expect(by[STATIN_REVIEW.pmid]).toMatchObject({ status: "kept", pmcid: STATIN_REVIEW.pmcid, year: 2023, topic: "Stroke", includedPmids: 8, unresolved: 1, row: 1 });
    expect(by["40000007"]).toMatchObject({ status: "kept", topic: "Hypertension", includedPmids: 7, row: 2 });
    expect(by["40000008"]).toMatchObject({ status: "kept", topic: "Stroke", includedPmids: 9, row: 3 });
    expect(by["40000009"].status).toBe("failed");
    expect(by["40000009"].reason).toContain("40000009 (PMC40000009)");
    expect(by["40000009"].reason).toContain(`${fake.url}efetch.fcgi`);
    expect(by["40000009"].reason).toContain("HTTP 500");
  });

  it("writes MedMeta.csv rows the MedMeta loader reads: title, conclusion, included PMIDs, date", async () => {
    const ds = await loadMedMeta({ path: first.out, abstracts: false });
    expect(ds.items.map((t) => t.id)).toEqual(["medmeta:1", "medmeta:2", "medmeta:3"]);
    const [statin, body, disc] = ds.items;
    expect(statin.question).toBe(STATIN_REVIEW.title);
    expect(statin.referenceConclusion).toBe(STATIN_REVIEW.conclusion);
    expect(statin.goldenPmids).toEqual([...STATIN_REVIEW.includedPmids]);
    expect(statin.meta).toMatchObject({ pmid: STATIN_REVIEW.pmid, url: `https://pmc.ncbi.nlm.nih.gov/articles/${STATIN_REVIEW.pmcid}/`, date: "2023-05-14", declaredRefs: 8, qualityFlags: "" });
    expect(body.goldenPmids).toEqual(pmids(50000500, 7));
    expect(body.referenceConclusion).toBe("Conclusion of review 40000007.");
    expect(disc.referenceConclusion).toBe("In summary, Conclusion of review 40000008.");
    expect(ds.warnings).toEqual([]);
    const report = JSON.parse(readFileSync(first.reportPath, "utf8")) as BuildMedMetaReport;
    expect(report.counts).toEqual(first.counts);
  });

  it("a re-run fetches only the failed review; the cached ones are not asked for again", async () => {
    fx.pmc.failing!.length = 0;
    const before = fake.requests.length;
    const again = await buildMedMeta(client(), { reviews: reviews(), out: join(dir, "rows.csv"), feasibility: { maxUnresolved: 1 } });
    const asked = fake.requests.slice(before);
    expect(asked.filter((q) => q.params.ids !== undefined).map((q) => q.params.ids)).toEqual(["40000009"]);
    expect(asked.filter((q) => q.params.db === "pmc").map((q) => q.params.id)).toEqual(["40000009"]);
    expect(again.fromCache).toBe(9);
    expect(again.fetched).toBe(1);
    expect(again.reviews.find((r) => r.pmid === "40000009")).toMatchObject({ status: "kept", includedPmids: 9, unresolved: 1, cached: false });
    expect(again.counts).toEqual({ kept: 4, dropped: 4, skipped: 2, failed: 0 });
  });

  it("the default feasibility (no unresolved study) drops the reviews with one; a stratified sample reports the rest as not drawn", async () => {
    const strict = await buildMedMeta(client(), { reviews: reviews(), out: join(dir, "strict.csv"), cacheDir: join(dir, "cache") });
    const by = Object.fromEntries(strict.reviews.map((r) => [r.pmid, r]));
    expect(by[STATIN_REVIEW.pmid]).toMatchObject({ status: "dropped", reason: "1 included study has no PMID (at most 0 allowed)" });
    expect(strict.fetched).toBe(0);
    const noTable = await buildMedMeta(client(), { reviews: ["40000005"], out: join(dir, "no-table.csv"), cacheDir: join(dir, "cache"), feasibility: { requireStudiesTable: false } });
    expect(noTable.reviews[0]).toMatchObject({ status: "kept", includedPmids: 8, cached: true });
    expect(readFileSync(join(dir, "no-table.csv"), "utf8")).toContain(",reference-list\n");
    // Feasible with maxUnresolved 1: 2021 Hypertension (40000007), 2022 Stroke ×2 (40000008, 40000009), 2023 Stroke (statin).
    // n = 3 by year: one per year.
    const s = await buildMedMeta(client(), { reviews: reviews(), out: join(dir, "sample.csv"), cacheDir: join(dir, "cache"), feasibility: { maxUnresolved: 1 }, sample: 3, seed: "k" });
    expect(s.sample.strata).toEqual({ "2021/Hypertension": 1, "2022/Stroke": 1, "2023/Stroke": 1 });
    const kept = s.reviews.filter((r) => r.status === "kept").map((r) => r.pmid);
    expect(kept).toHaveLength(3);
    expect(kept).toContain("40000007");
    expect(kept).toContain(STATIN_REVIEW.pmid);
    const notDrawn = s.reviews.filter((r) => r.reason?.startsWith("not drawn"));
    expect(notDrawn).toHaveLength(1);
    expect(["40000008", "40000009"]).toContain(notDrawn[0].pmid);
  });
});

describe("--reviews-file", () => {
  it("reads one PMID per line, skipping blanks and # comments, and names the file and line of a bad one", () => {
    const dir = mkdtempSync(join(tmpdir(), "medmeta-build-list-"));
    const good = join(dir, "good.txt");
    writeFileSync(good, "# reviews\n123\n\n  456  # second\r\n");
    expect(readReviewsFile(good)).toEqual(["123", "456"]);
    const bad = join(dir, "bad.txt");
    writeFileSync(bad, "123\nPMC123\n");
    expect(() => readReviewsFile(bad)).toThrow(`${bad}:2: expected one PMID per line (digits), got "PMC123"`);
  });
});
