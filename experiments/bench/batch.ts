/**
 * Bench: `medsynth run --batch` at scale against a local fake Batch API server (issue 27's target:
 * 10,000 cells of P-ZS + a 3-judge panel finish with exactly the requests an online run sends,
 * compared by body hash; 0 resubmitted after a `kill -9` mid-poll; failed lines retried and
 * counted; the dry-run names the batch share).
 *
 * Runs the compiled CLI (`dist/`, build first) as child processes against the fake server in this
 * process (tests/helpers/fake-batch-server.ts): an online run, then a batch run killed with SIGKILL
 * while its first batch is polled, then the same batch command again. Prints figures, asserts nothing.
 *
 * Usage: `nice -n 10 npx tsx experiments/bench/batch.ts [--cells 10000] [--fail-share 0.01] [--keep]`
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bodyHash, startFakeBatchServer, type FakeBatchOptions } from "../../tests/helpers/fake-batch-server.ts";
import { batchPanelResponder, writeBatchSetup } from "../../tests/helpers/batch-setup.ts";

const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const CELLS = Number(opt("cells", "10000"));
const FAIL_SHARE = Number(opt("fail-share", "0.01"));
const BIN = resolve("bin/medsynth.js");

const fake: FakeBatchOptions = {
  pollsToComplete: 1_000_000,
  // A deterministic share of lines fails (HTTP 500) the first time they are submitted.
  failLine: (id, n) => (n === 1 && parseInt(id.slice(0, 8), 16) / 0xffffffff < FAIL_SHARE ? 500 : null),
  responder: batchPanelResponder,
};

function cli(cliArgs: string[], env: NodeJS.ProcessEnv): { done: Promise<{ status: number | null; stdout: string; stderr: string; seconds: number }>; kill: () => void } {
  const t0 = performance.now();
  const c = spawn(process.execPath, [BIN, ...cliArgs], { env });
  let stdout = "";
  let stderr = "";
  c.stdout.on("data", (d) => (stdout += d));
  c.stderr.on("data", (d) => (stderr += d));
  return { done: new Promise((ok) => c.on("exit", (status) => ok({ status, stdout, stderr, seconds: (performance.now() - t0) / 1000 }))), kill: () => c.kill("SIGKILL") };
}

async function main(): Promise<void> {
  const server = await startFakeBatchServer(fake);
  const dir = mkdtempSync(join(tmpdir(), "medsynth-bench-batch-"));
  writeBatchSetup({ dir, baseURL: server.baseURL, items: CELLS, firstId: 0, dataset: "bench", apiKeyEnv: "BENCH_KEY", configs: ["online", "batch"], maxRetries: 2, concurrency: 32 });
  const env = (cache: string) => ({ ...process.env, NO_COLOR: "1", BENCH_KEY: "sk-bench-123456", MEDSYNTH_CACHE_DIR: join(dir, cache), MEDSYNTH_BATCH_POLL_MS: "200", MEDSYNTH_BATCH_IDLE_MS: "3000" });
  console.log(`batch bench: ${CELLS} cells of P-ZS + a 3-judge panel; ${(FAIL_SHARE * 100).toFixed(1)} % of batch lines fail once (HTTP 500); load ${loadavg()[0].toFixed(1)}`);

  const dry = await cli(["run", join(dir, "batch.yaml"), "--batch", "--dry-run"], env("cache-batch")).done;
  console.log(
    `dry-run: ${
      dry.stdout
        .split("\n")
        .find((l) => l.trim().startsWith("batch:"))
        ?.trim() ?? "(no batch line)"
    }`,
  );

  const online = await cli(["run", join(dir, "online.yaml"), "--no-progress", "--no-report"], env("cache-online")).done;
  const onlineHashes = server.onlineBodies.map(bodyHash).sort();
  console.log(`online run: exit ${online.status}, ${server.onlineBodies.length} requests, ${online.seconds.toFixed(1)} s`);
  const onlineCount = server.onlineBodies.length;

  const first = cli(["run", join(dir, "batch.yaml"), "--batch", "--no-progress", "--no-report"], env("cache-batch"));
  while (!(server.batches.length > 0 && server.batches[0].polls >= 3)) await new Promise((r) => setTimeout(r, 50));
  first.kill();
  const killed = await first.done;
  console.log(`batch run killed (SIGKILL) while polling batch ${server.batches[0].id} (${server.batches[0].lines.length} lines), after ${killed.seconds.toFixed(1)} s`);
  fake.pollsToComplete = 2;
  const second = await cli(["run", join(dir, "batch.yaml"), "--batch", "--no-progress", "--no-report"], env("cache-batch")).done;
  const retriedOnline = server.onlineBodies.slice(onlineCount);
  const submissions = [...server.submissions().values()];
  const batchHashes = server.batchLines.map((l) => bodyHash(l.body));
  // The requests of the batch run: each distinct custom_id's body once (a line failed and then
  // retried online counts once, as the online run sends it once).
  const firstBodyById = new Map<string, string>();
  for (const l of server.batchLines) if (!firstBodyById.has(l.customId)) firstBodyById.set(l.customId, bodyHash(l.body));
  const batchRunHashes = [...firstBodyById.values()].sort();
  const same = batchRunHashes.length === onlineHashes.length && batchRunHashes.every((h, i) => h === onlineHashes[i]);
  console.log(`batch re-run: exit ${second.status}, ${second.seconds.toFixed(1)} s`);
  console.log(`  ${second.stdout.split("\n").find((l) => l.startsWith("batches:")) ?? "(no batches line)"}`);
  console.log(
    `  batches ${server.batches.length}, lines submitted ${batchHashes.length}, distinct requests ${firstBodyById.size} (online run: ${onlineHashes.length}); same bodies as online: ${same}`,
  );
  console.log(`  custom_ids submitted more than once: ${submissions.filter((n) => n > 1).length} (lines that failed and went to a new batch count here; with --batch-retry online: 0)`);
  console.log(`  failed lines retried online: ${retriedOnline.length}`);
  const records = readFileSync(join(dir, "batch", "results.jsonl"), "utf8")
    .trim()
    .split("\n").length;
  console.log(`  records: ${records}`);
  await server.close();
  if (!args.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

await main();
