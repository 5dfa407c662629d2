/**
 * The run estimate against a server's request log, for every bundled experiment config
 * (issue 25 item 5). For each config: the `--dry-run` estimate of the full matrix as configured,
 * then a reduced matrix (every dataset sampled to `--sample` items, default 2) estimated and run
 * against the scripted OpenAI-compatible server of the tests (every structured request answered
 * with a valid value, loops at their bound), printing the estimate's call bounds next to the
 * requests the server received. Offline configs (extractive baselines) make no model call.
 *
 *   node --import tsx experiments/bench/estimate-check.ts [--sample 2] [--configs medmeta,rwesummary]
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";
import { dryRunCommand, runCommand } from "../cli/run-commands.ts";
import { schemaResponder } from "../../tests/helpers/schema-answers.ts";
import { startScriptedServer } from "../../tests/helpers/scripted-openai-server.ts";

const here = dirname(fileURLToPath(import.meta.url));
const CONFIGS = resolve(here, "..", "configs");
const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : d;
};
const sample = Number(arg("sample", "2"));
const names = arg("configs", "demo,robustness,medmeta,medconclusion,rwesummary").split(",");

// Arrays get 5 elements (loops and fan-outs at their bound); every text answer differs, so no
// judge prompt repeats (and none is answered from the cache).
const reply = schemaResponder({ text: "drug A", arrayLength: 5, plainText: (n) => `Compared with placebo, drug A reduced mortality in adults (answer ${n + 1}).` });

const server = await startScriptedServer(reply);
const work = mkdtempSync(join(tmpdir(), "medsynth-estimate-check-"));
Object.assign(process.env, {
  MEDSYNTH_OPENAI_BASE_URL: server.baseURL,
  OPENAI_API_KEY: "sk-scripted",
  MEDSYNTH_JUDGE_BASE_URL: server.baseURL,
  MEDSYNTH_JUDGE_API_KEY: "sk-scripted",
  MEDSYNTH_JUDGE_MODEL: "judge-1",
  MEDSYNTH_JUDGE_MODEL_2: "judge-2",
  MEDSYNTH_JUDGE_MODEL_3: "judge-3",
  MEDSYNTH_CACHE_DIR: join(work, "cache"),
});
const quiet = () => {};
const rows: string[] = [
  "| config | matrix | cells | generator calls (min–max, worst) | judge calls (max, worst) | metric calls (max) | requests made | made ≤ max |",
  "|---|---|---|---|---|---|---|---|",
];
for (const name of names) {
  const raw = YAML.parse(readFileSync(join(CONFIGS, `${name}.yaml`), "utf8")) as Record<string, any>;
  const dir = mkdtempSync(join(work, `${name}-`));
  const write = (cfg: Record<string, any>, tag: string) => {
    const file = join(dir, `${tag}.yaml`);
    writeFileSync(
      file,
      YAML.stringify({
        ...cfg,
        output: join(dir, `run-${tag}`),
        ...(cfg.panel ? { panel: resolve(CONFIGS, cfg.panel) } : {}),
        ...(cfg.promptDir ? { promptDir: resolve(CONFIGS, cfg.promptDir) } : {}),
      }),
    );
    return file;
  };
  const fmt = (e: Awaited<ReturnType<typeof dryRunCommand>>) => [
    `${e.generatorCalls.min}–${e.generatorCalls.max}, ${e.generatorCalls.worst}`,
    `${e.judgeCalls.max}, ${e.judgeCalls.worst}`,
    `${e.metricCalls.max}`,
  ];
  const full = await dryRunCommand(write(raw, "full"), {}, quiet);
  rows.push(`| ${name} | as configured | ${full.cells} | ${fmt(full).join(" | ")} | (not run) | |`);
  const small = {
    ...raw,
    datasets: raw.datasets.map((d: Record<string, unknown>) => ({ ...d, sample })),
    models: raw.models.map((m: Record<string, any>) => (m.endpoint ? { ...m, endpoint: { ...m.endpoint, cache: false } } : m)),
  };
  const file = write(small, "small");
  const est = await dryRunCommand(file, {}, quiet);
  const before = server.chatRequests().length;
  const t0 = Date.now();
  await runCommand(file, { progress: false, report: false }, quiet);
  const made = server.chatRequests().length - before;
  const max = est.generatorCalls.max + est.judgeCalls.max + est.metricCalls.max;
  rows.push(`| ${name} | ${sample} items per dataset | ${est.cells} | ${fmt(est).join(" | ")} | ${made} | ${made <= max ? "yes" : "NO"} (max ${max}; ${((Date.now() - t0) / 1000).toFixed(0)} s) |`);
  console.error(`${name}: done`);
}
await server.close();
console.log(rows.join("\n"));
