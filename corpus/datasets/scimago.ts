/**
 * SCImago Journal & Country Rank journal file (the CSV export of scimagojr.com, which the user
 * downloads; it is not redistributed here) → a lookup by ISSN giving each journal's SJR, best
 * quartile and subject categories, for MedConclusion's journal subgroups (§5).
 *
 * Format of SCImago's export: semicolon-separated, a header row with (among others) `Rank`,
 * `Sourceid`, `Title`, `Type`, `Issn`, `SJR`, `SJR Best Quartile`, `Categories`; `Issn` holds one
 * or more ISSNs without hyphens separated by ", " (e.g. `15424863, 00079235`); `SJR` uses a
 * decimal comma (`145,004`); `Categories` is `"Oncology (Q1); Hematology (Q1)"`. Quoted fields
 * may contain semicolons.
 *
 * @see ../../../shared/seeds/000_* (MedConclusion §3.1.2, §5, Appendix F).
 */
import { parse } from "csv-parse/sync";
import { readDataFile } from "./loaded-dataset.ts";

/** One journal of the SCImago file. */
export interface ScimagoJournal {
  sourceId: string;
  title: string;
  /** Normalised ISSNs (8 characters, no hyphen, upper-case X). */
  issns: string[];
  /** SJR indicator (decimal comma converted); null when the cell is empty. */
  sjr: number | null;
  /** "Q1" … "Q4", or null ("-" or empty in the file). */
  quartile: string | null;
  /** Subject categories without their "(Qn)" suffix. */
  categories: string[];
}

/** Journals of a SCImago file indexed by ISSN. */
export interface ScimagoIndex {
  /** The file it was read from. */
  source: string;
  journals: ScimagoJournal[];
  byIssn: Map<string, ScimagoJournal>;
  /** Rows left out (no ISSN), and ISSNs listed by two journals (the first kept). */
  warnings: string[];
}

/**
 * Normalise an ISSN for joining: keep digits and X, upper-case, left-pad to 8 with zeros (SCImago
 * exports have been seen without leading zeros); "" when nothing is left.
 * @example normalizeIssn("0007-9235") === "00079235"; normalizeIssn("1234-567x") === "1234567X"
 */
export function normalizeIssn(issn: string): string {
  const s = issn.replace(/[^0-9xX]/g, "").toUpperCase();
  return s ? s.padStart(8, "0") : "";
}

/** Parse a decimal-comma (or decimal-point) number; null for empty or unparseable. */
function decimal(s: string | undefined): number | null {
  if (s === undefined) return null;
  const t = s.trim().replace(/\s/g, "");
  if (!t) return null;
  // "1.234,5" (thousands point, decimal comma) or "145,004" or "0.5".
  const v = Number(t.includes(",") ? t.replace(/\./g, "").replace(",", ".") : t);
  return Number.isFinite(v) ? v : null;
}

/**
 * Parse the text of a SCImago export.
 * @param source - file name used in messages.
 * @throws Error naming the source when a required column (Issn, SJR, Title) is missing.
 */
export function parseScimago(text: string, source = "scimago.csv"): ScimagoIndex {
  const rows = parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, {
    delimiter: ";",
    columns: true,
    skip_empty_lines: true,
    relax_quotes: true,
    relax_column_count: true,
    trim: true,
  }) as Record<string, string>[];
  const cols = rows.length ? Object.keys(rows[0]) : [];
  const missing = ["Title", "Issn", "SJR"].filter((c) => !cols.includes(c));
  if (missing.length) throw new Error(`SCImago file ${source}: no column(s) ${missing.join(", ")} (is it SCImago's semicolon-separated export? columns found: ${cols.join(", ") || "none"})`);
  const journals: ScimagoJournal[] = [];
  const byIssn = new Map<string, ScimagoJournal>();
  const warnings: string[] = [];
  rows.forEach((r, i) => {
    const issns = (r.Issn ?? "")
      .split(/[,;\s]+/)
      .map(normalizeIssn)
      .filter((x) => x.length === 8);
    if (!issns.length) {
      warnings.push(`${source} row ${i + 2} (${r.Title}): no ISSN; left out`);
      return;
    }
    const q = (r["SJR Best Quartile"] ?? "").trim();
    const j: ScimagoJournal = {
      sourceId: (r.Sourceid ?? "").trim(),
      title: (r.Title ?? "").trim(),
      issns,
      sjr: decimal(r.SJR),
      quartile: /^Q[1-4]$/.test(q) ? q : null,
      categories: (r.Categories ?? "")
        .split(";")
        .map((c) => c.replace(/\s*\((Q[1-4]|-)\)\s*$/, "").trim())
        .filter(Boolean),
    };
    journals.push(j);
    for (const s of issns) {
      const prev = byIssn.get(s);
      if (prev && prev !== j) warnings.push(`${source}: ISSN ${s} listed by "${prev.title}" and "${j.title}"; the first is used`);
      else byIssn.set(s, j);
    }
  });
  return { source, journals, byIssn, warnings };
}

/**
 * Read a SCImago export from disk.
 * @throws Error naming the path when it is missing or lacks the required columns.
 */
export function loadScimago(path: string): ScimagoIndex {
  return parseScimago(readDataFile(path, "scimago"), path);
}
