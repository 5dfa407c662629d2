/**
 * OHDSI hydroxychloroquine safety network study (Lane et al., Lancet Rheumatology 2020; result
 * tables of the OHDSI Shiny app, transcribed — see `rwe/ohdsi-hcq/SOURCE.md`) → one
 * {@link RweStudy} per comparison:
 * - "ohdsi-hcq:hcq-vs-ssz": hydroxychloroquine vs sulfasalazine in rheumatoid arthritis;
 * - "ohdsi-hcq:hcq-azm-vs-hcq-amx": HCQ + azithromycin vs HCQ + amoxicillin in rheumatoid arthritis.
 *
 * Per comparison: outcomes = the meta-analysis hazard ratio (95% CI, p) of each of the 16
 * outcomes over a 30-day fixed time-at-risk (calibrated HR/p in the note, or used as the estimate
 * with `estimate: "calibrated"`); cohort sizes = exposure subjects summed over databases
 * (`COUNTS clean.csv`, before propensity-score adjustment); baseline differences = Table 1
 * covariates (CCAE database only, after adjustment) with |standardized difference| above a
 * threshold.
 */
import { join } from "node:path";
import { z } from "zod";
import { parse } from "csv-parse/sync";
import { RweStudySchema, type RweOutcome, type RweStudy } from "../types.ts";
import { parseEstimateWithCi } from "./rwe-glp1.ts";
import { createSkipCounter, dataFolderPath, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const OHDSI_HCQ_DATASET = "ohdsi-hcq";

/** The two comparisons of the bundled tables and where each one's numbers live. */
export const OHDSI_HCQ_COMPARISONS = [
  {
    id: "ohdsi-hcq:hcq-vs-ssz",
    hrFile: "HRs HCQ vs SSZ 30-day fixed.csv",
    exposedCohort: "Hydroxychloroquine with prior RA",
    comparatorCohort: "Sulfasalazine with prior RA",
    table1Columns: ["eT", "fT", "gT"] as const,
    exposedShort: "HCQ",
    comparatorShort: "SSZ",
    question:
      "In patients with rheumatoid arthritis, is starting hydroxychloroquine rather than sulfasalazine associated with a different 30-day risk of cardiovascular, renal, hepatic, gastrointestinal and other serious adverse events?",
    population: "Adults with rheumatoid arthritis (prior RA diagnosis) starting a new treatment, in 14 claims and EHR databases of the OHDSI network",
    intervention: "New use of hydroxychloroquine (HCQ)",
    comparator: "New use of sulfasalazine (SSZ)",
  },
  {
    id: "ohdsi-hcq:hcq-azm-vs-hcq-amx",
    hrFile: "HRs HCQ+AZM vs HCQ+AMX 30-day fixed.csv",
    exposedCohort: "Hydroxychloroquine + Azithromycin with prior RA",
    comparatorCohort: "Hydroxychloroquine + Amoxicillin with prior RA",
    table1Columns: ["eC", "fC", "gC"] as const,
    exposedShort: "HCQ+AZM",
    comparatorShort: "HCQ+AMX",
    question:
      "In patients with rheumatoid arthritis taking hydroxychloroquine, is adding azithromycin rather than amoxicillin associated with a different 30-day risk of cardiovascular, renal, hepatic, gastrointestinal and other serious adverse events?",
    population: "Adults with rheumatoid arthritis (prior RA diagnosis) using hydroxychloroquine, in claims and EHR databases of the OHDSI network",
    intervention: "Hydroxychloroquine plus new use of azithromycin (HCQ+AZM)",
    comparator: "Hydroxychloroquine plus new use of amoxicillin (HCQ+AMX)",
  },
] as const;

/** Options of {@link loadOhdsiHcq}. */
export const OhdsiHcqOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Folder with the tables (default `<dataDir>/rwe/ohdsi-hcq`). */
    dir: z.string().optional(),
    /** Which HR/p to report as the outcome estimate; the other one goes into the note. */
    estimate: z.enum(["uncalibrated", "calibrated"]).default("uncalibrated"),
    /** Outcomes without a meta-analysis row: leave out (with a warning) or report each database's HR. */
    missingMetaAnalysis: z.enum(["skip", "per-database"]).default("skip"),
    /** A Table 1 covariate is a baseline difference when |standardized difference| > this. */
    smdThreshold: z.number().min(0).default(0.1),
  })
  .strict();
/** Options of {@link loadOhdsiHcq}. */
export type OhdsiHcqOptions = z.input<typeof OhdsiHcqOptionsSchema>;

/** One Table 1 row: covariate (section-qualified), % in each arm, standardized difference, per comparison column group. */
export interface Table1Row {
  variable: string;
  values: Record<string, string | null>;
}

/**
 * Parse the OHDSI Table 1 CSV (3 header rows under the column-letter row; section rows with
 * blank cells; covariate rows indented by 4 spaces; "NA" = not reported). Leading age-band rows
 * before any section are named "Age group <band>".
 */
export function parseOhdsiTable1(csvText: string): Table1Row[] {
  const rows = parse(csvText, { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
  const out: Table1Row[] = [];
  let section: string | null = null;
  for (const r of rows.slice(3)) {
    const label = r.a ?? "";
    const name = label.trim();
    const cells = Object.entries(r).filter(([k]) => k !== "a");
    const blank = cells.every(([, v]) => !v || !v.trim());
    if (blank) {
      section = name;
      continue;
    }
    const indented = /^\s/.test(label);
    const variable = indented ? (section ? `${section}: ${name}` : /^\d+-\d+$/.test(name) ? `Age group ${name}` : name) : name;
    if (!indented) section = null;
    out.push({ variable, values: Object.fromEntries(cells.map(([k, v]) => [k, v && v.trim() && v.trim() !== "NA" ? v.trim() : null])) });
  }
  return out;
}

/**
 * Load the OHDSI HCQ tables as one RweStudy per comparison.
 * @throws Error naming the file when a table is missing or lacks a column.
 */
export async function loadOhdsiHcq(options: OhdsiHcqOptions = {}): Promise<LoadedDataset<RweStudy>> {
  const opts = OhdsiHcqOptionsSchema.parse(options);
  const dir = opts.dir ?? (await dataFolderPath(opts.dataDir, "rwe/ohdsi-hcq"));
  const warnings: string[] = [];
  const skipped = createSkipCounter();

  const countsPath = join(dir, "COUNTS clean.csv");
  const counts = parse(readDataFile(countsPath, OHDSI_HCQ_DATASET), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const exposureSubjects = new Map<string, number>();
  const subjectSums = new Map<string, number>();
  let current = "";
  for (const r of counts) {
    if (r.exposureName && r.exposureName.trim()) current = r.exposureName.trim();
    exposureSubjects.set(current, Number(r.exposureSubjects));
    subjectSums.set(current, (subjectSums.get(current) ?? 0) + Number(r.subjects));
  }
  for (const [name, total] of exposureSubjects) {
    if (subjectSums.get(name) !== total) warnings.push(`${countsPath}: "${name}" per-database subjects sum to ${subjectSums.get(name)} but exposureSubjects is ${total}`);
  }

  const table1Path = join(dir, "table1 CCAE.csv");
  const table1 = parseOhdsiTable1(readDataFile(table1Path, OHDSI_HCQ_DATASET));

  const items: RweStudy[] = [];
  for (const c of OHDSI_HCQ_COMPARISONS) {
    const hrPath = join(dir, c.hrFile);
    const rows = parse(readDataFile(hrPath, OHDSI_HCQ_DATASET), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    const need = ["Outcome", "Database", "HR (95% CI)", "P", "Cal. HR (95% CI)", "Cal. p"];
    const missing = need.filter((k) => rows.length > 0 && !(k in rows[0]));
    if (missing.length) throw new Error(`dataset "ohdsi-hcq": ${hrPath} lacks column(s) ${missing.join(", ")}`);
    const outcomeNames = [...new Set(rows.map((r) => r.Outcome))];
    const outcomes: RweOutcome[] = [];
    const toOutcome = (r: Record<string, string>, name: string, scope: string): RweOutcome | null => {
      const raw = parseEstimateWithCi(r["HR (95% CI)"]);
      const cal = parseEstimateWithCi(r["Cal. HR (95% CI)"]);
      const p = Number(r.P);
      const calP = Number(r["Cal. p"]);
      const main = opts.estimate === "calibrated" ? cal : raw;
      if (!main) {
        warnings.push(`${hrPath} outcome "${r.Outcome}" ${r.Database}: cannot parse HR; left out`);
        return null;
      }
      const mainP = opts.estimate === "calibrated" ? calP : p;
      const other = opts.estimate === "calibrated" ? `uncalibrated HR ${r["HR (95% CI)"]}, p ${r.P}` : `calibrated HR ${r["Cal. HR (95% CI)"]}, calibrated p ${r["Cal. p"]}`;
      const notes = [scope, other];
      if (Number.isFinite(mainP) && mainP === 0) notes.push("p printed as 0.00 (< 0.005)");
      return { name, measure: "HR", ...main, pValue: Number.isFinite(mainP) ? mainP : null, note: notes.join("; ") };
    };
    for (const name of outcomeNames) {
      const perDb = rows.filter((r) => r.Outcome === name && r.Database !== "Meta-analysis");
      const meta = rows.find((r) => r.Outcome === name && r.Database === "Meta-analysis");
      if (meta) {
        const o = toOutcome(meta, name, `meta-analysis over ${perDb.length} database(s)`);
        if (o) outcomes.push(o);
      } else if (opts.missingMetaAnalysis === "per-database") {
        for (const r of perDb) {
          const o = toOutcome(r, `${name} [${r.Database}]`, `single database ${r.Database}; no meta-analysis estimate`);
          if (o) outcomes.push(o);
        }
      } else {
        warnings.push(`${hrPath}: outcome "${name}" has no meta-analysis row (${perDb.length} database rows); left out (missingMetaAnalysis: "skip")`);
      }
    }
    const [pctE, pctC, smdCol] = c.table1Columns;
    let maxAbs = 0;
    const baselineDifferences = table1.flatMap((row) => {
      const smd = row.values[smdCol] === null ? NaN : Number(row.values[smdCol]);
      if (!Number.isFinite(smd)) return [];
      maxAbs = Math.max(maxAbs, Math.abs(smd));
      if (Math.abs(smd) <= opts.smdThreshold) return [];
      return [{ variable: row.variable, description: `${c.exposedShort} ${row.values[pctE]}% vs ${c.comparatorShort} ${row.values[pctC]}% (std. diff ${smd.toFixed(2)})` }];
    });
    if (baselineDifferences.length === 0) {
      warnings.push(`${table1Path}: no covariate of ${c.id} has |std. diff| > ${opts.smdThreshold} (max ${maxAbs.toFixed(2)}, CCAE only); baselineDifferences is empty`);
    }
    const exposed = exposureSubjects.get(c.exposedCohort) ?? null;
    const comparator = exposureSubjects.get(c.comparatorCohort) ?? null;
    if (exposed === null || comparator === null) warnings.push(`${countsPath}: no exposure count for ${exposed === null ? c.exposedCohort : c.comparatorCohort}`);
    const candidate = {
      id: c.id,
      dataset: OHDSI_HCQ_DATASET,
      question: c.question,
      design: "cohort",
      picot: {
        population: c.population,
        intervention: c.intervention,
        comparator: c.comparator,
        outcomes: outcomes.map((o) => o.name),
        time: "30 days from treatment start (fixed time-at-risk)",
      },
      cohortSizes: { exposed, comparator, total: exposed !== null && comparator !== null ? exposed + comparator : null },
      propensityMatched: true,
      baselineDifferences,
      outcomes,
      source: `OHDSI Covid19EstimationHydroxychloroquine result tables (${c.hrFile}; COUNTS clean.csv; table1 CCAE.csv); see rwe/ohdsi-hcq/SOURCE.md`,
    };
    const v = validateItem(RweStudySchema, candidate);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${hrPath}: ${v.reason}; comparison skipped`);
      continue;
    }
    items.push(v.value);
  }
  return { name: OHDSI_HCQ_DATASET, taskKind: "rwe", items, warnings, skipped: skippedOf(skipped) };
}
