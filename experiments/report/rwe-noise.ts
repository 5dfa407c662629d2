/**
 * Next to the RWESummary weighted score: is the min–max normalisation driven by differences
 * smaller than their own noise? Inference time per model with its t-based 95 % CI, and a note for
 * every metric (inference time or a jury metric) whose models' CIs overlap — min–max turns a
 * 0.06 s vs 0.04 s gap into 0 % vs 100 % whether or not the gap is real.
 */
import type { RunRecord } from "../types.ts";
import { columnsOf, recordValues } from "./columns.ts";
import { fmt, meanCi, type MeanCi, type ReportTable } from "./tables.ts";

function overlapOrUnknown(a: MeanCi, b: MeanCi): boolean {
  if (a.ciLow === null || a.ciHigh === null || b.ciLow === null || b.ciHigh === null) return true;
  return a.ciLow <= b.ciHigh && b.ciLow <= a.ciHigh;
}

/**
 * The noise table of RWESummary records (null with fewer than two models).
 * @returns a table of inference time mean ± CI per model, with a caption naming the metrics whose
 *   differences between models lie within their CIs.
 */
export function rweNoiseTable(records: RunRecord[]): ReportTable | null {
  const rwe = records.filter((r) => r.taskKind === "rwe" && r.status === "ok");
  const models = [...new Set(rwe.map((r) => r.model))];
  if (models.length < 2) return null;
  const cols = columnsOf(rwe).filter((c) => c.startsWith("judge:rwe-") && !c.includes("@"));
  const series: Record<string, (r: RunRecord) => number | undefined> = {
    inference_time: (r) => (r.generator.modelLatencyMs ?? r.generator.latencyMs) / 1000,
    ...Object.fromEntries(cols.map((c) => [c.replace(/^judge:/, ""), (r: RunRecord) => recordValues(r)[c]])),
  };
  const within: string[] = [];
  const latency: Record<string, MeanCi | null> = {};
  for (const [metric, get] of Object.entries(series)) {
    const cis = models.map((m) =>
      meanCi(
        rwe
          .filter((r) => r.model === m)
          .map(get)
          .filter((x): x is number => x !== undefined),
      ),
    );
    if (metric === "inference_time") models.forEach((m, i) => (latency[m] = cis[i]));
    const present = cis.filter((c): c is MeanCi => !!c);
    if (present.length < 2) continue;
    const lo = present.reduce((a, b) => (b.mean < a.mean ? b : a));
    const hi = present.reduce((a, b) => (b.mean > a.mean ? b : a));
    if (hi.mean === lo.mean) within.push(`${metric} (equal for every model: it adds nothing to the score)`);
    else if (overlapOrUnknown(lo, hi)) within.push(`${metric} (lowest ${fmt(lo.mean)} vs highest ${fmt(hi.mean)}; their 95 % CIs overlap)`);
  }
  return {
    id: "rwe-noise",
    title: "RWESummary: inference time with 95 % CI, and differences within noise",
    caption: within.length
      ? `Min–max normalisation maps the lowest model to 0 % and the highest to 100 % however small the gap. Within noise, so read their normalised values and the weighted score with care: ${within.join("; ")}.`
      : "Every metric's gap between the lowest and the highest model exceeds the overlap of their 95 % CIs.",
    header: ["model", "n", "inference time (s): mean", "95 % CI"],
    rows: models.map((m) => {
      const c = latency[m];
      return [m, String(c?.n ?? 0), fmt(c?.mean, 3), c && c.ciLow !== null ? `${fmt(c.ciLow, 3)} – ${fmt(c.ciHigh, 3)}` : "– (n < 2)"];
    }),
    values: models.map((m) => ({ model: m, ...(latency[m] ?? { n: 0 }), withinNoise: within })),
  };
}
