/**
 * SVG charts of the report, specified in Vega-Lite and rendered headless by Vega's SVG renderer
 * (no browser, no canvas): bars with 95 % CIs, parameter sweeps (K sweep, negation dose–response)
 * and Bland–Altman plots.
 */
import type { TopLevelSpec } from "vega-lite";
import { blandAltman } from "../../judges/stats/index.ts";
import type { RunRecord } from "../types.ts";
import { groupBy, recordValues, variantLabel } from "./columns.ts";
import { meanCi } from "./tables.ts";

/** A rendered chart. */
export interface Chart {
  id: string;
  title: string;
  svg: string;
  /** The data points behind the chart. */
  data: Record<string, unknown>[];
}

/** Render a Vega-Lite spec to an SVG string (Vega is loaded on the first chart, not at start-up). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Bars of the mean of `column` per model × variant with 95 % CI error bars. */
export async function barsWithCi(records: RunRecord[], column: string): Promise<Chart | null> {
  const data: Record<string, unknown>[] = [];
  for (const [k, rs] of groupBy(records, (r) => `${r.model}\u0000${variantLabel(r)}`)) {
    const [model, variant] = k.split("\u0000");
    const m = meanCi(rs.map((r) => recordValues(r)[column]).filter((x): x is number => x !== undefined));
    if (m) data.push({ model, variant, mean: m.mean, lo: m.ciLow ?? m.mean, hi: m.ciHigh ?? m.mean, n: m.n });
  }
  if (!data.length) return null;
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `${column}: mean and 95 % CI`,
    data: { values: data },
    width: { step: 28 },
    height: 220,
    encoding: { x: { field: "variant", type: "nominal", title: null, sort: null, axis: { labelAngle: -30, labelLimit: 220 } }, xOffset: { field: "model", sort: null } },
    layer: [
      { mark: "bar", encoding: { y: { field: "mean", type: "quantitative", title: column }, color: { field: "model", type: "nominal", sort: null, legend: { labelLimit: 400 } } } },
      { mark: { type: "rule", color: "black" }, encoding: { y: { field: "lo", type: "quantitative" }, y2: { field: "hi" } } },
    ],
  };
  return { id: `bars-${column}`, title: `${column} by model and workflow`, svg: await renderSvg(spec), data };
}

/**
 * Line chart of the mean of `column` against a numeric workflow parameter (e.g. `k` for the K
 * sweep, `negationFraction` for the negation dose–response), one line per model × workflow.
 * Null when the parameter takes fewer than two values.
 */
export async function paramSweep(records: RunRecord[], param: string, column: string, title: string): Promise<Chart | null> {
  const withParam = records.filter((r) => typeof r.params[param] === "number");
  if (new Set(withParam.map((r) => r.params[param])).size < 2) return null;
  const data: Record<string, unknown>[] = [];
  for (const [k, rs] of groupBy(withParam, (r) => `${r.model} · ${r.workflow}\u0000${r.params[param]}`)) {
    const [series, x] = k.split("\u0000");
    const m = meanCi(rs.map((r) => recordValues(r)[column]).filter((v): v is number => v !== undefined));
    if (m) data.push({ series, [param]: Number(x), mean: m.mean, lo: m.ciLow ?? m.mean, hi: m.ciHigh ?? m.mean, n: m.n });
  }
  if (data.length < 2) return null;
  const xs = [...new Set(data.map((d) => d[param] as number))].sort((a, b) => a - b);
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values: data },
    width: 360,
    height: 220,
    // Integer parameters (K) get integer ticks at their values; the padding keeps the CI whiskers
    // of the first and last points inside the plot.
    encoding: {
      x: { field: param, type: "quantitative", scale: { zero: false, nice: false, padding: 16 }, axis: xs.every(Number.isInteger) ? { values: xs, format: "d" } : { values: xs } },
      color: { field: "series", type: "nominal", sort: null, legend: { labelLimit: 400, orient: "bottom", columns: 1 } },
    },
    layer: [
      { mark: { type: "line", point: true }, encoding: { y: { field: "mean", type: "quantitative", title: column } } },
      { mark: "rule", encoding: { y: { field: "lo", type: "quantitative" }, y2: { field: "hi" } } },
    ],
  };
  return { id: `sweep-${param}-${column}`, title, svg: await renderSvg(spec), data };
}

/** Most points a scatter chart of the report plots ({@link blandAltmanChart}); more are sampled. */
export const MAX_CHART_POINTS = 5000;

/**
 * Bland–Altman plot of two paired score lists: x = mean of the pair, y = difference (a − b),
 * with the bias and the 95 % limits of agreement (bias ± 1.96·SD) over all pairs.
 * With more than `maxPoints` pairs the plot shows a systematic sample of `maxPoints` of them —
 * pair ⌊i·n/maxPoints⌋ for i = 0 … maxPoints − 1, in the order given (the report's record order)
 * — and its title says so; the bias, the limits and `n` in the data stay those of all pairs.
 * @returns null with fewer than 3 pairs.
 */
export async function blandAltmanChart(id: string, title: string, a: ArrayLike<number>, b: ArrayLike<number>, maxPoints = MAX_CHART_POINTS): Promise<Chart | null> {
  const n = a.length;
  if (n < 3) return null;
  const ba = blandAltman(Array.from(a), Array.from(b));
  const sampled = n > maxPoints;
  const picks = sampled ? Array.from({ length: maxPoints }, (_, i) => Math.floor((i * n) / maxPoints)) : Array.from({ length: n }, (_, i) => i);
  const data = picks.map((i) => ({ mean: (a[i] + b[i]) / 2, diff: a[i] - b[i] }));
  if (sampled)
    title = `${title} (${maxPoints.toLocaleString("en-US")} of ${n.toLocaleString("en-US")} pairs plotted: a systematic sample, every ${(n / maxPoints).toFixed(1)}th pair in report order; bias and limits of agreement over all pairs)`;
  const lines = [
    { y: ba.bias, label: `bias ${ba.bias.toFixed(3)}` },
    { y: ba.loaLower, label: `LoA ${ba.loaLower.toFixed(3)}` },
    { y: ba.loaUpper, label: `LoA ${ba.loaUpper.toFixed(3)}` },
  ];
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: 360,
    height: 220,
    layer: [
      {
        data: { values: data },
        mark: { type: "point", filled: true, opacity: 0.6 },
        encoding: { x: { field: "mean", type: "quantitative", title: "mean of the two scores" }, y: { field: "diff", type: "quantitative", title: "difference (a − b)" } },
      },
      { data: { values: lines }, mark: { type: "rule", strokeDash: [4, 3] }, encoding: { y: { field: "y", type: "quantitative" } } },
      { data: { values: lines }, mark: { type: "text", align: "left", dx: 4, dy: -6 }, encoding: { y: { field: "y", type: "quantitative" }, x: { value: 0 }, text: { field: "label" } } },
    ],
  };
  return { id, title, svg: await renderSvg(spec), data: [...data, { bias: ba.bias, loaLower: ba.loaLower, loaUpper: ba.loaUpper, n: ba.n, ...(sampled ? { plotted: maxPoints } : {}) }] };
}
