/**
 * Screenshots of the viewer for the README and docs/viewer.md: the cell table, an item page (Negated-RAG diff and
 * evidence) and the rating form, taken in headless Chromium (Debian package, playwright-core).
 *
 * Usage: `npx tsx scripts/viewer-screenshots.ts <run-dir> [out-dir=docs] [item-id]`
 * The rating screenshot uses a throw-away study of the run (MedMeta rubric, 1 rater, 2 items).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startViewerServer } from "../viewer/server.ts";
import { createStudy } from "../viewer/study/study.ts";
import { launchChromium } from "../tests/helpers/chromium.ts";

const [runDir, outDir = "docs", itemId] = process.argv.slice(2);
if (!runDir) throw new Error("usage: scripts/viewer-screenshots.ts <run-dir> [out-dir] [item-id]");
const browser = await launchChromium();
try {
  const srv = await startViewerServer({ runs: [runDir], port: 0 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`${srv.url}/#cells?workflow=standard-rag&sort=latencyMs&dir=desc&size=12`);
  await page.waitForSelector("#cells tbody tr");
  await page.screenshot({ path: join(outDir, "viewer-cells.png") });
  const id = itemId ?? (srv.index!.db.prepare("SELECT itemId FROM r0.cells ORDER BY id LIMIT 1").get() as { itemId: string }).itemId;
  await page.setViewportSize({ width: 1600, height: 900 });
  await page.goto(`${srv.url}/#item?id=${encodeURIComponent(id)}`);
  await page.waitForSelector("article.cell");
  await page.screenshot({ path: join(outDir, "viewer-item.png") });
  await page.setViewportSize({ width: 1280, height: 720 });
  await srv.close();
  const studyDir = join(mkdtempSync(join(tmpdir(), "medsynth-shot-")), "study");
  const { study } = createStudy(runDir, { rubric: "medmeta", raters: 1, items: 2, seed: 1, out: studyDir });
  const rs = await startViewerServer({ study: studyDir, port: 0 });
  await page.goto(`${rs.url}/rate/${study.raters[0].token}`);
  await page.waitForSelector("#rating-form");
  await page.screenshot({ path: join(outDir, "rating-form.png"), fullPage: false });
  await rs.close();
  console.log(`wrote ${outDir}/viewer-cells.png, viewer-item.png, rating-form.png`);
} finally {
  await browser.close();
}
