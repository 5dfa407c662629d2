/**
 * Definitions (names, options, help) of `medsynth view` and `medsynth annotate create|serve|export`. Only commander is loaded here; each action
 * imports viewer-commands.ts (which in turn loads the viewer server and SQLite) when the command runs, so `--help` does not load the web server or better-sqlite3.
 */
import type { Command } from "commander";
import type { CreateCli } from "./viewer-commands.ts";

const impl = () => import("./viewer-commands.ts");

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

/** Register `view` and `annotate` on the program. */
export function registerViewerCommands(program: Command): void {
  program
    .command("view")
    .description("Browse run results in a local web app: cell table, item pages with evidence and judges, compare runs, export")
    .argument("<run-dirs...>", "run folder(s) with results.jsonl")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "8765")
    .action(async (dirs: string[], o: ServeOptions) => {
      const m = await impl();
      const srv = await m.viewCommand(dirs, { host: o.host, port: parsePort(o.port) });
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
    .option("--missing-inputs <how>", "cells without a text the rubric needs (e.g. a reference): exclude (and say how many) or refuse", "exclude")
    .action(async (runDir: string, o: CreateCli) => {
      await (await impl()).annotateCreateCommand(runDir, o);
    });
  annotate
    .command("serve")
    .description("Serve a study's rating app; prints one secret link per rater")
    .argument("<study-dir>", "study folder (with study.json)")
    .option("--host <host>", "interface to listen on (tokens are the only access control)", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "8766")
    .option("--public-url <url>", "the address raters use, e.g. https://ratings.example.org (Host check and printed links follow it; docs/rating-studies.md)")
    .option("--tls-cert <file>", "serve HTTPS with this PEM certificate (with --tls-key)")
    .option("--tls-key <file>", "PEM private key of --tls-cert")
    .option("--trust-proxy <addresses>", "reverse-proxy addresses (comma-separated) whose X-Forwarded-Host/-Proto/-For are believed; none by default")
    .option("--save-limit <n>", "saves per minute per rater link (more answer 429 and the page retries)", "30")
    .option("--links-file <file>", "write the rater links to this file (mode 600) instead of printing them")
    .option("--access-log", "log each request to stderr (rater tokens replaced by the rater id)")
    .action(async (dir: string, o: ServeOptions & { publicUrl?: string; tlsCert?: string; tlsKey?: string; trustProxy?: string; saveLimit: string; linksFile?: string; accessLog?: boolean }) => {
      const m = await impl();
      const saveLimit = Number(o.saveLimit);
      if (!Number.isFinite(saveLimit) || saveLimit < 1) throw new Error(`--save-limit must be a number ≥ 1, got "${o.saveLimit}"`);
      const srv = await m.annotateServeCommand(dir, {
        host: o.host,
        port: parsePort(o.port),
        publicUrl: o.publicUrl,
        tlsCert: o.tlsCert,
        tlsKey: o.tlsKey,
        trustProxy: o.trustProxy
          ?.split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        saveLimit,
        linksFile: o.linksFile,
        accessLog: o.accessLog ? (l) => process.stderr.write(`access ${l}\n`) : undefined,
      });
      await serveUntilInterrupted(srv.close);
    });
  annotate
    .command("export")
    .description("Write a study's ratings, de-blinded, as CSV or JSONL")
    .argument("<study-dir>", "study folder")
    .option("--format <fmt>", "csv or jsonl", "csv")
    .option("--out <file>", "output file (default <study-dir>/ratings.<fmt>)")
    .action(async (dir: string, o: { format: string; out?: string }) => {
      await (await impl()).annotateExportCommand(dir, o);
    });
}
