/**
 * `medsynth view` (results explorer) and `medsynth annotate create|serve|export` (blinded human
 * rating studies), plus the `validate --human` runner. The viewer (viewer/) is loaded with a
 * dynamic import inside each action, so other commands never load the web server or SQLite.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { medsynthCommand } from "../../corpus/paths.ts";
import { skippedLinesText } from "../../results/results-file.ts";

/**
 * Start the explorer over run folders; prints the URL (and malformed-line counts).
 * @returns the server (tests close it); the CLI waits for Ctrl-C
 */
export async function viewCommand(runDirs: string[], o: { host?: string; port?: number }, print: (l: string) => void = console.log) {
  const { startViewerServer } = await import("../../viewer/server.ts");
  let last = 0;
  const onIndexProgress = (run: number, cells: number) => {
    if (cells - last >= 100_000 || cells < last) {
      last = cells;
      console.error(`indexing run ${run}: ${cells.toLocaleString("en")} cells…`);
    }
  };
  const srv = await startViewerServer({ runs: runDirs, host: o.host, port: o.port, onIndexProgress });
  for (const r of srv.index!.runs) {
    const how = r.action === "reused" ? "index reused" : `index ${r.action} in ${r.seconds.toFixed(1)} s`;
    const skipped = skippedLinesText(r.malformedLines, r.truncatedTail);
    if (r.workersFailed) console.error(`warning: run ${r.index}: ${r.workersFailed}; the index was built in the server's own thread instead`);
    print(`run ${r.index}: ${r.name} — ${r.cells} cells (${how})${skipped ? `, ${skipped}` : ""}`);
  }
  print(`medsynth viewer: ${srv.url}/  (Ctrl-C to stop)`);
  return srv;
}

/** Options of `annotate create` as commander gives them. */
export interface CreateCli {
  rubric: string;
  raters: string;
  items: string;
  seed: string;
  mode: string;
  workflows?: string;
  calibration?: string;
  name: string;
  out?: string;
  missingInputs?: string;
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
    missingInputs: (o.missingInputs ?? "exclude") as "exclude" | "refuse",
  });
  const items = new Set(study.tasks.filter((t) => !t.calibration).map((t) => t.itemId)).size;
  const ex = study.excluded;
  if (ex && ex.cells) {
    print(
      `left out ${ex.items} item(s) and ${ex.cells} cell(s) without the ${study.requiredInputs!.join(" / ")} text the rubric needs${ex.itemIds.length ? `: ${ex.itemIds.slice(0, 10).join(", ")}${ex.itemIds.length > 10 ? ", …" : ""}` : ""} (--missing-inputs refuse stops instead)`,
    );
  }
  print(
    `study "${study.name}" in ${dir}: ${items} items, ${study.tasks.length} tasks (${study.tasks.filter((t) => t.calibration).length} calibration), ${study.configs.length} configurations, ${study.raters.length} raters, mode ${study.mode}`,
  );
  print(`serve it with: ${medsynthCommand()} annotate serve ${dir}`);
  return { study, dir };
}

/** Options of `annotate serve` (see docs/rating-studies.md for the remote setup). */
export interface AnnotateServeOptions {
  host?: string;
  port?: number;
  runs?: string[];
  /** The address raters use (`https://ratings.example.org`): the Host check and the links follow it. */
  publicUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** Reverse-proxy addresses whose X-Forwarded-* headers are believed. */
  trustProxy?: string[];
  /** Saves per minute per rater link. */
  saveLimit?: number;
  /** Write the links to this file (mode 0600) instead of printing them. */
  linksFile?: string;
  /** Access log (tokens replaced by rater ids) to this function, e.g. stderr. */
  accessLog?: (line: string) => void;
}

/**
 * Serve a study's rating app; prints one link per rater (on `--public-url` when given), or writes
 * them to `--links-file` so no token reaches a captured stdout.
 * @throws when the run's cells changed, or a remote option is invalid
 */
export async function annotateServeCommand(studyDir: string, o: AnnotateServeOptions, print: (l: string) => void = console.log) {
  const { startViewerServer } = await import("../../viewer/server.ts");
  const { isLoopback } = await import("../../viewer/study/remote.ts");
  const srv = await startViewerServer({
    study: studyDir,
    host: o.host,
    port: o.port,
    runs: o.runs,
    publicUrl: o.publicUrl,
    tlsCert: o.tlsCert,
    tlsKey: o.tlsKey,
    trustProxy: o.trustProxy,
    savesPerMinute: o.saveLimit,
    log: o.accessLog,
  });
  const remoteHost = !!o.host && !isLoopback(o.host);
  const base = o.publicUrl ? srv.publicUrl : remoteHost ? srv.url.replace("127.0.0.1", "<this-machine>") : srv.url;
  const links = srv.study!.raters.map((r) => `${r.id}: ${base}/rate/${r.token}`);
  if (o.linksFile) {
    writeFileSync(o.linksFile, links.join("\n") + "\n", { mode: 0o600 });
    print(`${links.length} rater links written to ${o.linksFile} (readable by you only)`);
  } else links.forEach((l) => print(l));
  print(`listening on ${srv.url}${o.publicUrl ? `; raters use ${srv.publicUrl}` : ""}`);
  if (remoteHost && !o.publicUrl) print("warning: raters on other machines: give --public-url <the address they use> (the links above name no real host, and the Host check is off)");
  if (new URL(base.replace("<this-machine>", "x")).protocol === "http:" && (remoteHost || (o.publicUrl && !isLoopback(new URL(o.publicUrl).hostname)))) {
    print("warning: the links travel in plain HTTP: anyone on the network path can read a rater's token. Use --tls-cert/--tls-key or an HTTPS reverse proxy (docs/rating-studies.md).");
  }
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
    const columns = [
      "rater",
      "task",
      "itemId",
      "calibration",
      "keyA",
      "configA",
      "keyB",
      "configB",
      ...studyDimensions(study).map((d) => d.id),
      "preference",
      "preferred",
      "comment",
      "revision",
      "updatedAt",
    ];
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
