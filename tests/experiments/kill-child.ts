/** Child process for the kill -9 test: runs a slow fake experiment and prints "done N" per cell. */
import { parseExperimentConfig } from "../../experiments/config.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { fakeDeps } from "./fake-runner-deps.ts";

const out = process.argv[2];
const cfg = parseExperimentConfig({ name: "kill", output: out, concurrency: 2, datasets: [{ name: "fake" }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "echo", params: { k: [5, 10] } }] });
await runExperiment(cfg, fakeDeps(40, { calls: [], failOn: new Set(), delayMs: 100 }), {
  log: () => {},
  onProgress: (p) => process.stdout.write(`done ${p.done}\n`),
});
