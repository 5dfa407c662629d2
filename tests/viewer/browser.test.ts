/**
 * End to end in headless Chromium (Debian package, playwright-core): the explorer (filter, open an
 * item, the Negated-RAG diff and golden evidence, malformed lines counted, XSS payloads inert) and
 * the rating app (three tasks rated by two raters, close and reopen, two tabs of one rater, export).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotateExportCommand } from "../../experiments/cli/viewer-commands.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { createStudy } from "../../viewer/study/study.ts";
import { RatingStore } from "../../viewer/study/store.ts";
import { launchChromium, runBrowserTests } from "../helpers/chromium.ts";
import { makeRunDir, XSS } from "./fixtures.ts";
import { makeStudyRun } from "./study-fixtures.ts";

/** Wait until the element's text starts with / includes `text` (evaluated in the page). */
const waitText = (page: Page, selector: string, how: "startsWith" | "includes", text: string) =>
  page.waitForFunction(
    ({ selector, how, text }) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document;
      const t = doc.querySelector(selector)?.textContent ?? "";
      return how === "startsWith" ? t.startsWith(text) : t.includes(text);
    },
    { selector, how, text },
  );

describe.runIf(runBrowserTests)("viewer in Chromium", () => {
  let browser: Browser;
  let srv: ViewerServer;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
    srv = await startViewerServer({ runs: [makeRunDir()], port: 0 });
  });
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });
  const open = async (path: string): Promise<Page> => {
    const page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("dialog", (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(srv.url + path);
    return page;
  };

  it("filters the table, opens an item and shows the negation diff and golden evidence", async () => {
    const page = await open("/");
    await page.waitForSelector("#cells tbody tr");
    expect(await page.textContent("#malformed-0")).toContain("2 malformed line(s) skipped (lines 4, 19)");
    expect(await page.textContent("#count")).toContain("17 of 17 cells");
    await page.selectOption("#f-workflow", "negated-rag");
    await waitText(page, "#count", "startsWith", "6 of 17");
    await page.selectOption("#f-params", "fraction=1");
    await waitText(page, "#count", "startsWith", "3 of 17");
    await page.click("#cells tbody tr:first-child a.item-link");
    await page.waitForSelector("#item-title");
    expect(await page.locator("article.cell").count()).toBe(5);
    const neg = page.locator('article.cell[data-workflow="negated-rag"] section.negation').last();
    expect(await neg.locator("del").count()).toBeGreaterThan(0);
    expect(await neg.locator("ins").count()).toBeGreaterThan(0);
    expect(await page.locator('article.cell[data-workflow="standard-rag"] tr.golden .golden-badge').count()).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("sorts by clicking a header and exports the filtered rows", async () => {
    const page = await open("/#cells?workflow=standard-rag");
    await waitText(page, "#count", "startsWith", "6 of");
    await page.click('th[data-col="latencyMs"]');
    await page.waitForFunction(() => (globalThis as unknown as { location: { hash: string } }).location.hash.includes("sort=latencyMs"));
    await page.waitForSelector('th[data-col="latencyMs"]:has-text("▲")');
    const href = await page.getAttribute("#export-csv", "href");
    const csv = await (await fetch(srv.url + href)).text();
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(6);
    const lat = rows.map((r) => Number(r.latencyMs));
    expect(lat).toEqual([...lat].sort((a, b) => a - b));
    await page.close();
  });

  it("keeps XSS payloads in outputs, plans, rationales, raw answers, questions and references inert", async () => {
    const page = await open("/#cells?q=" + encodeURIComponent("<img"));
    await page.waitForSelector("#cells tbody tr");
    await page.goto(srv.url + "/#item?id=" + encodeURIComponent("xss:1"));
    await page.waitForSelector("article.cell .output");
    await page.locator("details summary").last().click();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: string }).__xss ?? null)).toBeNull();
    expect(await page.textContent("article.cell .output")).toBe(XSS.output);
    expect(await page.textContent("#item-title")).toBe(XSS.question);
    expect(await page.textContent(".rationale")).toBe(XSS.rationale);
    expect(await page.textContent("pre.raw")).toBe(XSS.raw);
    expect(await page.locator("main img, main script, main svg, main iframe").count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe.runIf(runBrowserTests)("rating app in Chromium", () => {
  let browser: Browser;
  let srv: ViewerServer;
  let studyDir: string;
  let tokens: string[];
  const DIM = "medmeta-semantic-equivalence.semantic_equivalence";
  beforeAll(async () => {
    browser = await launchChromium();
    studyDir = join(mkdtempSync(join(tmpdir(), "medsynth-study-e2e-")), "study");
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 2, seed: 5, out: studyDir });
    tokens = study.raters.map((r) => r.token);
    srv = await startViewerServer({ study: studyDir, port: 0 });
  });
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });

  /** Rate the shown task and wait until the server's count of this rater's ratings is `done`. */
  const rateCurrent = async (page: Page, score: number, done: number) => {
    await page.check(`input[name="score-${DIM}"][value="${score}"]`);
    await page.click("#save");
    await waitText(page, "#progress", "includes", ` ${done} of 6 rated`);
    await page.waitForSelector("#message.ok");
  };

  it("two raters rate three tasks each, close, reopen and find them; a second tab cannot double or lose a rating; export", async () => {
    for (const [i, token] of tokens.entries()) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`${srv.url}/rate/${token}`);
      await page.waitForSelector("#rating-form");
      expect(await page.textContent("#progress")).toBe(`rater${i + 1} · 0 of 6 rated`);
      // the form shows the rubric's anchors
      expect(await page.textContent("#rating-form")).toContain("Excellent equivalence");
      for (let t = 0; t < 3; t++) {
        await waitText(page, "#task-title", "startsWith", `Task ${t + 1} `);
        await rateCurrent(page, (t + i) % 6, t + 1);
      }
      await ctx.close(); // closed tab
      const again = await browser.newContext();
      const p2 = await again.newPage();
      await p2.goto(`${srv.url}/rate/${token}`);
      await p2.waitForSelector("#rating-form");
      expect(await p2.textContent("#progress")).toBe(`rater${i + 1} · 3 of 6 rated`);
      expect(await p2.textContent("#task-title")).toContain("Task 4 of 6");
      await again.close();
    }
    // two tabs of rater1 on task 4: the first save wins, the second is told and reloaded
    const ctx = await browser.newContext();
    const tabA = await ctx.newPage();
    const tabB = await ctx.newPage();
    for (const tab of [tabA, tabB]) {
      await tab.goto(`${srv.url}/rate/${tokens[0]}#4`);
      await tab.waitForSelector("#rating-form");
    }
    await rateCurrent(tabA, 5, 4);
    await tabB.check(`input[name="score-${DIM}"][value="1"]`);
    await tabB.click("#save");
    await tabB.waitForSelector("#message.error");
    expect(await tabB.textContent("#message")).toContain("saved from another tab");
    expect(await tabB.isChecked(`input[name="score-${DIM}"][value="5"]`)).toBe(true);
    await ctx.close();
    // 403 page for a wrong token
    const bad = await (await browser.newPage()).goto(`${srv.url}/rate/not-a-rater`);
    expect(bad?.status()).toBe(403);

    const csv = await annotateExportCommand(studyDir, { format: "csv", out: join(studyDir, "out.csv") }, () => {});
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(7);
    expect(rows.filter((r) => r.rater === "rater1").map((r) => r[DIM])).toEqual(expect.arrayContaining(["0", "1", "2", "5"]));
    expect(
      rows
        .filter((r) => r.rater === "rater2")
        .map((r) => r[DIM])
        .sort(),
    ).toEqual(["1", "2", "3"]);
    const store = new RatingStore(studyDir);
    expect(store.historyCount()).toBe(7);
    store.close();
  });
});
