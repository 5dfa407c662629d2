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

/** HTML table. */
export function tableToHtml(t: ReportTable): string {
  const head = `<tr>${t.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`;
  const body = t.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<h3>${esc(t.title)}</h3>${t.caption ? `<p class="cap">${esc(t.caption)}</p>` : ""}<table><thead>${head}</thead><tbody>${body}</tbody></table>`;
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

/** Whole report as one standalone HTML page with inline SVG charts. */
export function reportToHtml(title: string, intro: string, sections: ReportSection[]): string {
  const parts = sections.map(
    (s) => `<section><h2>${esc(s.heading)}</h2>${s.text ? `<p>${esc(s.text)}</p>` : ""}${s.tables.map(tableToHtml).join("\n")}${s.charts.map((c) => `<figure>${c.svg}<figcaption>${esc(c.title)}</figcaption></figure>`).join("\n")}</section>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}thead{background:#f3f3f3}
.cap{color:#555;font-size:13px;font-style:italic}figure{display:inline-block;margin:1em}
</style></head><body><h1>${esc(title)}</h1><p>${esc(intro)}</p>${parts.join("\n")}</body></html>\n`;
}
