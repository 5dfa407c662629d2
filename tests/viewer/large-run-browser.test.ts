/**
 * The explorer on a generated run in headless Chromium: two runs of 4,000 demo-like cells
 * (experiments/bench/synthetic-results.ts, ~5.5 KB a line; run B with every 10th output changed
 * and some cells only in one run) open through their on-disk indexes; the table pages and sorts;
 * the compare page shows the counts and pages through the differing pairs from the cached
 * comparison (computed once, in a worker thread). Size: 4,000 cells keep this test within a few
 * seconds; with MEDSYNTH_LARGE_TESTS=1 it runs on 200,000 cells a run (issue 27: ~1.1 GB a run, a
 * few minutes), or on MEDSYNTH_VIEWER_TEST_CELLS cells. The 10⁶-cell figures come from
 * `experiments/bench/results-scale.ts`.
 */
import { closeSync, mkdtempSync, openSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticRecord } from "../../experiments/bench/synthetic-results.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { launchChromium, runBrowserTests } from "../helpers/chromium.ts";

const CELLS = Number(process.env.MEDSYNTH_VIEWER_TEST_CELLS ?? (process.env.MEDSYNTH_LARGE_TESTS === "1" ? 200_000 : 4000));
/** Time limits scaled to the run size (the defaults fit 4,000 cells). */
const SLOW = CELLS > 20_000 ? Math.ceil(CELLS / 4000) : 1;

function writeRun(name: string, map: (r: RunRecord, i: number) => RunRecord | null): string {
  const dir = mkdtempSync(join(tmpdir(), `large-run-${name}-`));
  writeFileSync(join(dir, "spec.json"), JSON.stringify({ config: { name } }));
  const fd = openSync(join(dir, "results.jsonl"), "w");
  let buf: string[] = [];
  for (let i = 0; i < CELLS; i++) {
    const r = map(syntheticRecord(i), i);
    if (r) buf.push(JSON.stringify(r) + "\n");
    if (buf.length >= 1000) {
      writeSync(fd, buf.join(""));
      buf = [];
    }
  }
  writeSync(fd, buf.join(""));
  closeSync(fd);
  return dir;
}

describe.runIf(runBrowserTests)("explorer on a generated run, in Chromium", () => {
  let browser: Browser;
  let srv: ViewerServer;
  beforeAll(async () => {
    const a = writeRun("run-a", (r, i) => (i % 250 === 7 ? null : r));
    const b = writeRun("run-b", (r, i) => (i % 300 === 11 ? null : i % 10 === 3 && r.output ? { ...r, output: `${r.output} Changed in run B.` } : r));
    [browser, srv] = await Promise.all([launchChromium(), startViewerServer({ runs: [a, b], port: 0 })]);
  }, 120_000 * SLOW);
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });

  it(
    "pages the table and the compare view",
    async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${srv.url}/#cells?run=0&sort=latencyMs&dir=desc`);
      await page.waitForSelector("#cells tbody tr");
      expect(await page.locator("#cells tbody tr").count()).toBe(50);

      await page.goto(`${srv.url}/#compare?a=0&b=1&diff=1`);
      await page.waitForSelector("#compare tbody tr", { timeout: 30_000 * SLOW });
      const counts = await page.locator("#cmp-counts").textContent();
      // every 10th cell changed in B (cells failed in both runs have no output and stay identical)
      const onlyB = Math.ceil((CELLS - 7) / 250); // left out of run A
      const onlyA = Math.ceil((CELLS - 11) / 300); // left out of run B
      const both = Array.from({ length: CELLS }, (_, i) => i).filter((i) => i % 250 !== 7 && i % 300 !== 11);
      const differ = both.filter((i) => i % 10 === 3 && syntheticRecord(i).output).length;
      expect(counts).toBe(`${both.length} matched cells: ${both.length - differ} identical, ${differ} differ; ${onlyA} only in A, ${onlyB} only in B`);
      expect(await page.locator("#compare tbody tr").count()).toBe(50);
      const firstPage = await page.locator("#compare tbody tr td:first-child").allTextContents();
      await page.getByRole("button", { name: "next ›" }).click();
      await page.waitForFunction(
        (first) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector("#compare tbody tr td")?.textContent !== first,
        firstPage[0],
      );
      const pager = await page.locator(".pager").textContent();
      expect(pager).toContain(`page 2 of ${Math.ceil((differ + onlyA + onlyB) / 50)}`);
      expect(errors).toEqual([]);
    },
    60_000 * SLOW,
  );
});
