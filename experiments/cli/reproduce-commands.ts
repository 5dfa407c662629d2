/**
 * `medsynth reproduce --list-published [--json] [--paper id]`: every published number of the three
 * papers (one JSON object per line with `--json`), then a count per table.
 *
 * `medsynth reproduce <run-dir> [--paper id] [--as model=paperModel] [--json]`: the report's
 * "Paper vs this run" section recomputed for an existing run, written to
 * `<run-dir>/paper-vs-run.md` and `paper-vs-run.json` and printed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { countByTable, PAPER_IDS, PAPER_TITLES, publishedValues, type PaperId } from "../report/published/index.ts";
import { comparePapers, paperModelEntries, paperSection, readRunForPapers, sectionPapers } from "../report/paper-section.ts";
import { reportToMarkdown } from "../report/render.ts";

/**
 * Check `--paper` values.
 * @throws Error naming the unknown id and the valid ones.
 */
export function parsePapers(ids: readonly string[]): PaperId[] | undefined {
  if (!ids.length) return undefined;
  for (const id of ids) if (!(PAPER_IDS as readonly string[]).includes(id)) throw new Error(`reproduce: unknown paper "${id}" (papers: ${PAPER_IDS.join(", ")})`);
  return PAPER_IDS.filter((p) => ids.includes(p));
}

/**
 * Print every published value: with `json`, one object per line
 * `{paper, table, row, column, value, printed, pm?, pmKind?, interval?}`; else one text line per
 * value. Either way a closing count per table goes to stderr (text: stdout).
 * @returns the number of values printed.
 */
export function listPublishedCommand(opts: { json?: boolean; papers?: readonly string[] } = {}, print: (l: string) => void = console.log, note: (l: string) => void = console.error): number {
  const values = publishedValues(parsePapers(opts.papers ?? []));
  for (const v of values) {
    if (opts.json) print(JSON.stringify(v));
    else
      print(
        `${PAPER_TITLES[v.paper]}  ${v.table}  ${Object.values(v.row).join(" · ")}  ${v.column}: ${v.printed}${v.interval ? ` [${v.interval.join(", ")}]` : ""}${v.pmKind ? ` (${v.pmKind})` : ""}`,
      );
  }
  const counts = countByTable(values).map((c) => `${PAPER_TITLES[c.paper]} ${c.table}: ${c.count}`);
  (opts.json ? note : print)(`${values.length} published values (${counts.join("; ")})`);
  return values.length;
}

/**
 * Parse `--as model=paperModel` pairs.
 * @throws Error for a pair without "=".
 */
export function parseAs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.lastIndexOf("=");
    if (i <= 0 || i === p.length - 1) throw new Error(`reproduce: --as "${p}" is not model=paperModel`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

/**
 * Recompute "Paper vs this run" for a run folder; writes paper-vs-run.md and paper-vs-run.json.
 * Papers: `--paper`, else the spec's `report.papers`, else those the paperModel labels name, else all three.
 * @throws Error naming the folder when it is not a run folder.
 */
export function reproduceCommand(
  dir: string,
  opts: { json?: boolean; papers?: readonly string[]; as?: readonly string[] } = {},
  print: (l: string) => void = console.log,
): { markdown: string; json: string } {
  const { records, config } = readRunForPapers(dir);
  const models = paperModelEntries(config, parseAs(opts.as ?? []));
  const chosen = parsePapers(opts.papers ?? []) ?? sectionPapers(models, config?.report?.papers === false ? undefined : config?.report?.papers);
  const res = comparePapers(records, models, chosen.length ? chosen : [...PAPER_IDS]);
  const section = paperSection(res);
  const files = { markdown: join(dir, "paper-vs-run.md"), json: join(dir, "paper-vs-run.json") };
  const md = reportToMarkdown(`Paper vs this run: ${dir}`, `${records.length} records.`, [section]);
  writeFileSync(files.markdown, md);
  writeFileSync(files.json, JSON.stringify(res, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) + "\n");
  print(opts.json ? JSON.stringify(res, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) : `${md}\nwrote ${files.markdown} and ${files.json}`);
  return files;
}
