/**
 * `medsynth view` (results explorer) and `medsynth annotate create|serve|export` (blinded human
 * rating studies), plus the `validate --human` runner. The viewer (viewer/) is loaded with a
 * dynamic import inside each action, so other commands never load the web server or SQLite.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";

/** Options of `view` / `annotate serve`. */
interface ServeOptions {
  host: string;
  port: string;
}

const parsePort = (p: string): number => {
  const n = Number(p);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port must be 0–65535, got "${p}"`);
  return n;
};

/** Keep the process alive until Ctrl-C, then close the server. */
async function serveUntilInterrupted(close: () => Promise<void>): Promise<void> {
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void close().then(done);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * Start the explorer over run folders; prints the URL (and malformed-line counts).
 * @returns the server (tests close it); the CLI waits for Ctrl-C
 */
export async function viewCommand(runDirs: string[], o: { host?: string; port?: number }, print: (l: string) => void = console.log) {
  const { startViewerServer } = await import("../../viewer/server.ts");
  const srv = await startViewerServer({ runs: runDirs, host: o.host, port: o.port });
  for (const r of srv.index!.runs) {
    print(`run ${r.index}: ${r.name} — ${r.records.length} cells${r.malformedLines.length ? `, ${r.malformedLines.length} malformed line(s) skipped` : ""}${r.truncatedTail ? ", torn last line left out" : ""}`);
  }
  print(`medsynth viewer: ${srv.url}/  (Ctrl-C to stop)`);
  return srv;
}

/** Options of `annotate create` as commander gives them. */
interface CreateCli {
  rubric: string;
  raters: string;
  items: string;
  seed: string;
  mode: string;
  workflows?: string;
  calibration?: string;
  name: string;
  out?: string;
}

/**
 * Create a study and print its folder and the raters' link paths.
 * @throws on invalid options (zod) or an empty sample
 */
export async function annotateCreateCommand(runDir: string, o: CreateCli, print: (l: string) => void = console.log) {
  const { createStudy } = await import("../../viewer/study/study.ts");
  const { study, dir } = createStudy(runDir, {
    rubric: o.rubric,
    raters: Number(o.raters),
    items: Number(o.items),
    seed: Number(o.seed),
    mode: o.mode as "single" | "pairwise",
    workflows: o.workflows ? o.workflows.split(",").map((s) => s.trim()) : undefined,
    calibration: o.calibration,
    name: o.name,
    out: o.out,
  });
  const items = new Set(study.tasks.filter((t) => !t.calibration).map((t) => t.itemId)).size;
  print(`study "${study.name}" in ${dir}: ${items} items, ${study.tasks.length} tasks (${study.tasks.filter((t) => t.calibration).length} calibration), ${study.configs.length} configurations, ${study.raters.length} raters, mode ${study.mode}`);
  print(`serve it with: medsynth annotate serve ${dir}`);
  return { study, dir };
}

/** Serve a study's rating app; prints one link per rater. @throws when the run's cells changed */
export async function annotateServeCommand(studyDir: string, o: { host?: string; port?: number; runs?: string[] }, print: (l: string) => void = console.log) {
  const { startViewerServer } = await import("../../viewer/server.ts");
  const srv = await startViewerServer({ study: studyDir, host: o.host, port: o.port, runs: o.runs });
  const base = o.host && !["127.0.0.1", "localhost", "::1"].includes(o.host) ? srv.url.replace("127.0.0.1", "<this-machine>") : srv.url;
  for (const r of srv.study!.raters) print(`${r.id}: ${base}/rate/${r.token}`);
  print("Each link is that rater's only credential: send it to them alone. Ctrl-C to stop.");
  return srv;
}

/** Write a study's ratings (de-blinded) as CSV or JSONL; returns the text written. */
export async function annotateExportCommand(studyDir: string, o: { format: string; out?: string }, print: (l: string) => void = console.log): Promise<string> {
  const { readStudy, studyDimensions } = await import("../../viewer/study/study.ts");
  const { RatingStore } = await import("../../viewer/study/store.ts");
  const { exportRatings } = await import("../../viewer/study/rater-service.ts");
  const { toCsv } = await import("../../viewer/server.ts");
  const study = readStudy(studyDir);
  const store = new RatingStore(studyDir);
  try {
    const rows = exportRatings(study, store);
    const columns = ["rater", "task", "itemId", "calibration", "keyA", "configA", "keyB", "configB", ...studyDimensions(study).map((d) => d.id), "preference", "preferred", "comment", "revision", "updatedAt"];
    let text: string;
    if (o.format === "csv") text = await toCsv(columns, rows);
    else if (o.format === "jsonl") text = rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
    else throw new Error(`--format must be csv or jsonl, got "${o.format}"`);
    const out = o.out ?? join(studyDir, `ratings.${o.format}`);
    writeFileSync(out, text);
    print(`wrote ${rows.length} ratings to ${out}`);
    return text;
  } finally {
    store.close();
  }
}

/**
 * `validate --human <study>`: alignment from the study's ratings; writes `human-alignment.json`
 * and `.md` in the study folder and prints the Markdown.
 * @throws when the run's cells changed since the study was created
 */
export async function validateHumanCommand(studyDir: string, o: { json?: boolean } = {}, print: (l: string) => void = console.log) {
  const { readStudy, checkStudyRun } = await import("../../viewer/study/study.ts");
  const { RatingStore } = await import("../../viewer/study/store.ts");
  const { humanAlignment, humanAlignmentMarkdown } = await import("../../viewer/study/human-alignment.ts");
  const study = readStudy(studyDir);
  const records = checkStudyRun(study);
  const store = new RatingStore(studyDir);
  try {
    const report = humanAlignment(study, records, store.all());
    const md = humanAlignmentMarkdown(report);
    const jsonText = JSON.stringify(report, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2);
    writeFileSync(join(studyDir, "human-alignment.json"), jsonText + "\n");
    writeFileSync(join(studyDir, "human-alignment.md"), md + "\n");
    print(o.json ? jsonText : md);
    return report;
  } finally {
    store.close();
  }
}

/** Register `view` and `annotate` on the program. */
export function registerViewerCommands(program: Command): void {
  program
    .command("view")
    .description("Browse run results in a local web app: cell table, item pages with evidence and judges, compare runs, export")
    .argument("<run-dirs...>", "run folder(s) with results.jsonl")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "8765")
    .action(async (dirs: string[], o: ServeOptions) => {
      const srv = await viewCommand(dirs, { host: o.host, port: parsePort(o.port) });
      await serveUntilInterrupted(srv.close);
    });
  const annotate = program.command("annotate").description("Blinded human rating studies of a run's outputs");
  annotate
    .command("create")
    .description("Create a study: stratified sample, blinded, per-rater random order, Latin-square balance, optional calibration")
    .argument("<run-dir>", "run folder with results.jsonl")
    .requiredOption("--rubric <rubric>", "medmeta | medconclusion | rwe, or rubric ids/files separated by commas")
    .option("--raters <n>", "number of raters", "2")
    .option("--items <n>", "items (questions/reviews) to sample; each brings one cell per configuration", "40")
    .option("--seed <n>", "sampling and ordering seed", "1")
    .option("--mode <mode>", "single (rubric form) or pairwise (A vs B preference)", "single")
    .option("--workflows <ids>", "only these workflow ids (comma-separated)")
    .option("--calibration <file>", 'JSON [{"key": cellKey, "scores": {"<rubric>.<dim>": n}}] shown first with the reference rating')
    .option("--name <name>", "study name", "study")
    .option("--out <dir>", "study folder (default <run-dir>/studies/<name>)")
    .action(async (runDir: string, o: CreateCli) => {
      await annotateCreateCommand(runDir, o);
    });
  annotate
    .command("serve")
    .description("Serve a study's rating app; prints one secret link per rater")
    .argument("<study-dir>", "study folder (with study.json)")
    .option("--host <host>", "interface to listen on (tokens are the only access control)", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "8766")
    .action(async (dir: string, o: ServeOptions) => {
      const srv = await annotateServeCommand(dir, { host: o.host, port: parsePort(o.port) });
      await serveUntilInterrupted(srv.close);
    });
  annotate
    .command("export")
    .description("Write a study's ratings, de-blinded, as CSV or JSONL")
    .argument("<study-dir>", "study folder")
    .option("--format <fmt>", "csv or jsonl", "csv")
    .option("--out <file>", "output file (default <study-dir>/ratings.<fmt>)")
    .action(async (dir: string, o: { format: string; out?: string }) => {
      await annotateExportCommand(dir, o);
    });
}
