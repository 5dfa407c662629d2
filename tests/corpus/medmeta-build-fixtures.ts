/**
 * JATS reviews written for the build-medmeta tests (our own text; element shapes as PMC serves
 * them: `article-meta` ids and dates, structured `<abstract>`, `<table-wrap>` with `<xref
 * ref-type="bibr">`, `<ref-list>` with `<element-citation>` and `<pub-id pub-id-type="pmid">`).
 */
import type { FakePubmedEntry } from "../helpers/fake-eutils-server.ts";

/** The hand-written review: PMID, PMCID and what the extraction must find. */
export const STATIN_REVIEW = {
  pmid: "39000001",
  pmcid: "PMC9900001",
  title: "Statins for the prevention of stroke in adults: a systematic review and meta-analysis",
  conclusion: "Statins reduce the risk of first stroke in adults at high cardiovascular risk. Trials in older adults are still needed.",
  /** B2–B6 carry a PMID; B7 has a DOI, B8 journal/volume/page (ecitmatch), B9 only a title; B10 nothing usable. */
  includedPmids: ["31000002", "31000003", "31000004", "31000005", "31000006", "31000007", "31000008", "31000009"],
  doi: "10.5555/stat.07",
  b9Title: "Rosuvastatin and cerebrovascular events in a cohort of hypertensive adults",
  /** The ecitmatch key the fake answers: journal|year|volume|first page|author, lower case. */
  citationKey: "stroke|2015|46|1201|garcia",
} as const;

/** The JATS `<article>` of {@link STATIN_REVIEW}. */
export const STATIN_REVIEW_JATS = `<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="review-article">
<front>
<journal-meta><journal-id journal-id-type="nlm-ta">J Test Neurol</journal-id><journal-title-group><journal-title>Journal of Test Neurology</journal-title></journal-title-group></journal-meta>
<article-meta>
<article-id pub-id-type="pmid">39000001</article-id>
<article-id pub-id-type="pmc">PMC9900001</article-id>
<article-id pub-id-type="doi">10.5555/review.1</article-id>
<article-categories><subj-group subj-group-type="heading"><subject>Review</subject></subj-group></article-categories>
<title-group><article-title>Statins for the prevention of stroke in adults: a systematic review and meta-analysis</article-title></title-group>
<pub-date pub-type="ppub"><month>6</month><year>2023</year></pub-date>
<pub-date pub-type="epub"><day>14</day><month>5</month><year>2023</year></pub-date>
<pub-date pub-type="pmc-release"><day>14</day><month>5</month><year>2024</year></pub-date>
<abstract>
<sec><title>Background</title><p>Whether statins prevent a first stroke is debated.</p></sec>
<sec><title>Methods</title><p>We searched three databases for randomised trials.</p></sec>
<sec><title>Results</title><p>Nine trials were included.</p></sec>
<sec><title>Conclusions</title><p>Statins reduce the risk of first stroke in adults at <italic>high</italic> cardiovascular risk.</p>
<p>Trials in older adults are still needed.</p></sec>
</abstract>
<abstract abstract-type="graphical"><p>Conclusion: a graphical abstract that must not be used.</p></abstract>
</article-meta>
</front>
<body>
<sec id="s1"><title>Introduction</title><p>Stroke is a leading cause of disability <xref ref-type="bibr" rid="B1">1</xref>.</p></sec>
<sec id="s2"><title>Results</title>
<p>The included trials are listed in <xref ref-type="table" rid="T1">Table 1</xref>.</p>
<table-wrap id="T1" position="float"><label>Table 1</label>
<caption><p>Characteristics of the included studies (quality rated with the scale of <xref ref-type="bibr" rid="B1">1</xref>)</p></caption>
<table><thead><tr><th>Study</th><th>Patients</th></tr></thead>
<tbody>
<tr><td>Adams 2012 <xref ref-type="bibr" rid="B2">2</xref></td><td>1200</td></tr>
<tr><td>Baker 2013 <xref ref-type="bibr" rid="B3">3</xref></td><td>800</td></tr>
<tr><td>Chen 2013 <xref ref-type="bibr" rid="B4 B5">4,5</xref></td><td>650</td></tr>
<tr><td>Diaz 2014 <xref ref-type="bibr" rid="B6">6</xref></td><td>400</td></tr>
<tr><td>Evans 2014 <xref ref-type="bibr" rid="B7">7</xref></td><td>300</td></tr>
<tr><td>Garcia 2015 <xref ref-type="bibr" rid="B8">8</xref></td><td>950</td></tr>
<tr><td>Hill 2016 <xref ref-type="bibr" rid="B9">9</xref></td><td>720</td></tr>
<tr><td>Ito 2017 <xref ref-type="bibr" rid="B10">10</xref></td><td>210</td></tr>
<tr><td>Adams 2012 (extension) <xref ref-type="bibr" rid="B2">2</xref></td><td>150</td></tr>
</tbody></table>
<table-wrap-foot><fn><p>Doses as in <xref ref-type="bibr" rid="B11">11</xref>.</p></fn></table-wrap-foot>
</table-wrap>
<table-wrap id="T2" position="float"><label>Table 2</label><caption><p>Pooled effect on stroke by dose</p></caption>
<table><tbody><tr><td>High dose <xref ref-type="bibr" rid="B11">11</xref></td><td>0.78</td></tr></tbody></table></table-wrap>
</sec>
<sec id="s3"><title>Discussion</title><p>Our findings agree with earlier work.</p>
<p>In conclusion, this paragraph must not be used when the abstract has a conclusion.</p></sec>
</body>
<back>
<ref-list><title>References</title>
<ref id="B1"><label>1</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Jones</surname><given-names>A</given-names></name></person-group><article-title>Stroke burden worldwide</article-title><source>Lancet</source><year>2010</year><volume>375</volume><fpage>10</fpage><pub-id pub-id-type="pmid">31000001</pub-id></element-citation></ref>
<ref id="B2"><label>2</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Adams</surname><given-names>B</given-names></name></person-group><article-title>Trial A</article-title><source>BMJ</source><year>2012</year><pub-id pub-id-type="pmid">31000002</pub-id></element-citation></ref>
<ref id="B3"><label>3</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Baker</surname></name></person-group><article-title>Trial B</article-title><source>BMJ</source><year>2013</year><pub-id pub-id-type="pmid">31000003</pub-id></element-citation></ref>
<ref id="B4"><label>4</label><mixed-citation publication-type="journal">Chen C. Trial C. JAMA. 2013. <pub-id pub-id-type="pmid">31000004</pub-id></mixed-citation></ref>
<ref id="B5"><label>5</label><mixed-citation publication-type="journal">Chen C. Trial C follow-up. <ext-link ext-link-type="uri" xlink:href="https://pubmed.ncbi.nlm.nih.gov/31000005">PubMed</ext-link></mixed-citation></ref>
<ref id="B6"><label>6</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Diaz</surname></name></person-group><article-title>Trial D</article-title><source>Stroke</source><year>2014</year><pub-id pub-id-type="pmid">31000006</pub-id></element-citation></ref>
<ref id="B7"><label>7</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Evans</surname></name></person-group><article-title>Trial E</article-title><source>Stroke</source><year>2014</year><pub-id pub-id-type="doi">10.5555/stat.07</pub-id></element-citation></ref>
<ref id="B8"><label>8</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Garcia</surname></name></person-group><article-title>Trial G</article-title><source>Stroke</source><year>2015</year><volume>46</volume><fpage>1201</fpage></element-citation></ref>
<ref id="B9"><label>9</label><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Hill</surname></name></person-group><article-title>Rosuvastatin and cerebrovascular events in a cohort of hypertensive adults</article-title><year>2016</year></element-citation></ref>
<ref id="B10"><label>10</label><mixed-citation publication-type="other">Ito K. Unpublished data, personal communication.</mixed-citation></ref>
<ref id="B11"><label>11</label><element-citation publication-type="journal"><article-title>Dosing of statins</article-title><source>Drugs</source><year>2009</year><pub-id pub-id-type="pmid">31000011</pub-id></element-citation></ref>
</ref-list>
</back>
</article>`;

/** Options of {@link jatsReview}. */
export interface FakeReviewSpec {
  pmid: string;
  pmcid: string;
  year: number;
  /** Included studies' PMIDs (each cited in the table); `null` = a ref without any identifier. */
  included: (string | null)[];
  /** Where the conclusion is: abstract section, body section, discussion paragraph, or none. */
  conclusion?: "abstract" | "body" | "discussion" | "none";
  /** No included-studies table: the studies are cited in the text only. */
  noTable?: boolean;
  /** Front matter only, as PMC serves articles outside the open-access subset. */
  frontOnly?: boolean;
}

/** A generated JATS review (for the many-review tests): conclusion "Conclusion of review <pmid>.". */
export function jatsReview(s: FakeReviewSpec): string {
  const refs = s.included.map(
    (p, i) =>
      `<ref id="R${i + 1}"><element-citation><person-group><name><surname>Author${i + 1}</surname></name></person-group><source>J</source><year>2010</year>${p ? `<pub-id pub-id-type="pmid">${p}</pub-id>` : ""}</element-citation></ref>`,
  );
  const cites = s.included.map((_, i) => `<xref ref-type="bibr" rid="R${i + 1}">${i + 1}</xref>`);
  const concl = `Conclusion of review ${s.pmid}.`;
  const c = s.conclusion ?? "abstract";
  const front = `<front><journal-meta><journal-title-group><journal-title>Generated Journal</journal-title></journal-title-group></journal-meta><article-meta><article-id pub-id-type="pmid">${s.pmid}</article-id><article-id pub-id-type="pmc">${s.pmcid.replace(/^PMC/, "")}</article-id><title-group><article-title>Review ${s.pmid}</article-title></title-group><pub-date pub-type="epub"><day>2</day><month>3</month><year>${s.year}</year></pub-date><abstract><sec><title>Objective</title><p>To review.</p></sec>${c === "abstract" ? `<sec><title>Authors' conclusions</title><p>${concl}</p></sec>` : ""}</abstract></article-meta></front>`;
  if (s.frontOnly) return `<article>${front}</article>`;
  const table = s.noTable
    ? `<p>We included ${cites.join(", ")}.</p>`
    : `<table-wrap id="T1"><label>Table 1</label><caption><title>Study characteristics</title></caption><table><tbody>${cites.map((x) => `<tr><td>${x}</td></tr>`).join("")}</tbody></table></table-wrap>`;
  const body = `<body><sec><title>Results</title>${table}</sec>${c === "body" ? `<sec><title>5. Conclusions</title><p>${concl}</p></sec>` : ""}<sec><title>Discussion</title><p>Discussion text.</p>${c === "discussion" ? `<p>In summary, ${concl}</p>` : ""}</sec></body>`;
  return `<article>${front}${body}<back><ref-list>${refs.join("")}</ref-list></back></article>`;
}

/** A PubMed entry for a review (topic = MeSH major heading), for the fake's efetch db=pubmed. */
export function reviewPubmedEntry(pmid: string, year: number, majorMesh: string | null, journal = "Generated Journal"): FakePubmedEntry {
  return {
    pmid,
    date: `${year}/03/02`,
    title: `Review ${pmid}`,
    abstract: [{ text: `Abstract of review ${pmid}.` }],
    journal,
    mesh: majorMesh ? [{ name: "Humans" }, { name: majorMesh, major: true }] : [],
  };
}
