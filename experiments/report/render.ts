/**
 * Rendering report tables and charts to Markdown and to one standalone HTML file (SVG inline,
 * no external assets).
 */
import type { ReportTable } from "./tables.ts";
import type { Chart } from "./charts.ts";

/** A report section: heading, optional paragraph, tables and charts. */
export interface ReportSection {
  heading: string;
  text?: string;
  tables: ReportTable[];
  charts: Chart[];
}

function mdCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** Markdown table (GitHub pipe syntax). */
export function tableToMarkdown(t: ReportTable): string {
  const lines = [`**${t.title}**`, ""];
  if (t.caption) lines.push(`_${t.caption}_`, "");
  lines.push(`| ${t.header.map(mdCell).join(" | ")} |`, `| ${t.header.map(() => "---").join(" | ")} |`);
  for (const r of t.rows) lines.push(`| ${r.map(mdCell).join(" | ")} |`);
  return lines.join("\n");
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * HTML table.
 * @param underHeading the heading of the section it sits in: a title equal to it is not repeated.
 */
export function tableToHtml(t: ReportTable, underHeading?: string): string {
  const head = `<tr>${t.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`;
  const body = t.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  // A wide table scrolls inside its own box instead of pushing the page wider.
  return `${t.title === underHeading ? "" : `<h3>${esc(t.title)}</h3>`}${t.caption ? `<p class="cap">${esc(t.caption)}</p>` : ""}<div class="tablewrap"><table><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
}

/**
 * Whole report as Markdown; charts are referenced as files `charts/<id>.svg`.
 */
export function reportToMarkdown(title: string, intro: string, sections: ReportSection[]): string {
  const out = [`# ${title}`, "", intro, ""];
  for (const s of sections) {
    out.push(`## ${s.heading}`, "");
    if (s.text) out.push(s.text, "");
    for (const t of s.tables) out.push(tableToMarkdown(t), "");
    for (const c of s.charts) out.push(`![${c.title}](charts/${c.id}.svg)`, "");
  }
  return out.join("\n");
}

/** Anchor id of a section heading (`tokens-cost-and-failures`), unique within the page. */
function anchorOf(heading: string, seen: Map<string, number>): string {
  const base =
    heading
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "section";
  const n = (seen.get(base) ?? 0) + 1;
  seen.set(base, n);
  return n === 1 ? base : `${base}-${n}`;
}

/**
 * Whole report as one standalone HTML page with inline SVG charts: a table of contents, sections
 * with the same heading merged into one (no duplicate headings), wide tables scrolling inside
 * their box, charts no wider than the page.
 */
export function reportToHtml(title: string, intro: string, sections: ReportSection[]): string {
  const merged: ReportSection[] = [];
  for (const s of sections) {
    const prev = merged.find((m) => m.heading === s.heading);
    if (prev) {
      prev.tables = [...prev.tables, ...s.tables];
      prev.charts = [...prev.charts, ...s.charts];
      if (s.text) prev.text = prev.text ? `${prev.text} ${s.text}` : s.text;
    } else merged.push({ ...s, tables: [...s.tables], charts: [...s.charts] });
  }
  const seen = new Map<string, number>();
  const ids = merged.map((s) => anchorOf(s.heading, seen));
  const toc = merged.length > 1 ? `<nav class="toc"><h2>Contents</h2><ol>${merged.map((s, i) => `<li><a href="#${ids[i]}">${esc(s.heading)}</a></li>`).join("")}</ol></nav>` : "";
  const parts = merged.map(
    (s, i) =>
      `<section id="${ids[i]}"><h2>${esc(s.heading)}</h2>${s.text ? `<p>${esc(s.text)}</p>` : ""}${s.tables.map((t) => tableToHtml(t, s.heading)).join("\n")}${s.charts.map((c) => `<figure>${c.svg}<figcaption>${esc(c.title)}</figcaption></figure>`).join("\n")}</section>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
.tablewrap{max-width:100%;overflow-x:auto;margin:.5em 0 1.5em}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}thead{background:#f3f3f3}
.cap{color:#555;font-size:13px;font-style:italic}figure{display:inline-block;margin:1em;max-width:100%;overflow-x:auto}
figure svg{max-width:100%;height:auto}.toc ol{columns:2;font-size:14px}
</style></head><body><h1>${esc(title)}</h1><p>${esc(intro)}</p>${toc}${parts.join("\n")}</body></html>\n`;
}
