/**
 * The report's "Human ratings" section: for each rating study of the run folder
 * (`<run>/studies/<name>/human-alignment.json`, written by `medsynth validate --human`), the
 * rater–rater agreement and the human-vs-panel alignment tables. Only the JSON file is read, so
 * the report does not depend on the viewer's code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReportSection } from "./render.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** The parts of `human-alignment.json` this section reads. */
interface HumanAlignmentFile {
  study: string;
  raters: string[];
  ratings: number;
  agreement: {
    dimension: string;
    tasks: number;
    icc: { icc21: number | null; n: number } | null;
    alpha: { alpha: number | null } | null;
    kappa: { raters: string[]; result: { kappa: number | null } }[];
  }[];
  humanVsPanel: {
    dimension: string;
    group: string;
    result: {
      n: number;
      pearson: { estimate: number | null };
      spearman: { estimate: number | null };
      blandAltman: { bias: number; loaLower: number; loaUpper: number };
      pairedT: { t: number | null; p: number | null };
      cohenDz: number | null;
    } | null;
    note: string | null;
  }[];
  preferences: { dimension: string; n: number; agreement: number | null }[];
}

const f = (v: number | null | undefined, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(d));

/**
 * Sections for the studies of a run folder that have an alignment file (none → empty list).
 * A file that cannot be read becomes a one-line note, not an error.
 */
export function humanRatingSections(runDir: string): ReportSection[] {
  const root = join(runDir, "studies");
  if (!existsSync(root)) return [];
  const sections: ReportSection[] = [];
  for (const name of readdirSync(root).sort()) {
    const file = join(root, name, "human-alignment.json");
    if (!existsSync(file)) continue;
    let h: HumanAlignmentFile;
    try {
      h = JSON.parse(readFileSync(file, "utf8")) as HumanAlignmentFile;
    } catch (err) {
      sections.push({ heading: `Human ratings: ${name}`, text: `${file} could not be read: ${(err as Error).message}`, tables: [], charts: [] });
      continue;
    }
    sections.push({
      heading: `Human ratings: study "${h.study}"`,
      text: `${h.raters.length} raters, ${h.ratings} ratings (\`${medsynthCommand()} validate --human ${join(root, name)}\`; rate more with \`${medsynthCommand()} annotate serve ${join(root, name)}\`).`,
      tables: [
        {
          id: `human-agreement-${name}`,
          title: "Rater–rater agreement",
          header: ["dimension", "tasks", "ICC(2,1)", "ICC n", "Krippendorff α", "Cohen's κ"],
          rows: h.agreement.map((a) => [
            a.dimension,
            String(a.tasks),
            f(a.icc?.icc21),
            String(a.icc?.n ?? "–"),
            f(a.alpha?.alpha),
            a.kappa.map((k) => `${k.raters.join("–")} ${f(k.result.kappa)}`).join("; ") || "–",
          ]),
        },
        {
          id: `human-panel-${name}`,
          title: "Human (mean of raters) vs LLM panel",
          header: ["dimension", "group", "n", "Pearson r", "Spearman ρ", "bias (panel − human)", "LoA", "paired t", "p", "d_z"],
          rows: h.humanVsPanel.map((x) =>
            x.result
              ? [
                  x.dimension,
                  x.group,
                  String(x.result.n),
                  f(x.result.pearson.estimate),
                  f(x.result.spearman.estimate),
                  f(x.result.blandAltman.bias),
                  `${f(x.result.blandAltman.loaLower)} to ${f(x.result.blandAltman.loaUpper)}`,
                  f(x.result.pairedT.t),
                  f(x.result.pairedT.p, 4),
                  f(x.result.cohenDz),
                ]
              : [x.dimension, x.group, "–", "–", "–", "–", "–", "–", "–", x.note ?? ""],
          ),
        },
        ...h.preferences.map((p) => ({
          id: `human-preference-${name}`,
          title: `Pairwise preference agreement (${p.dimension})`,
          header: ["ratings with both panel scores", "human = panel"],
          rows: [[String(p.n), p.agreement === null ? "–" : `${(p.agreement * 100).toFixed(1)} %`]],
        })),
      ],
      charts: [],
    });
  }
  return sections;
}
