/**
 * The rating page and explorer for keyboard and screen-reader users, and a save while the server
 * is down, in headless Chromium: a skip link and a progress bar + "go to task" field instead of a
 * button per task, focus on the next task's heading after a save, status in an aria-live region,
 * sortable headers as buttons with aria-sort; a save to a dead server keeps the score and comment,
 * says so, and is retried until the server is back.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { createStudy } from "../../viewer/study/study.ts";
import { RatingStore } from "../../viewer/study/store.ts";
import { launchChromium, runBrowserTests } from "../helpers/chromium.ts";
import { makeRunDir } from "./fixtures.ts";
import { makeStudyRun } from "./study-fixtures.ts";

const DIM = "medmeta-semantic-equivalence.semantic_equivalence";
type Doc = { activeElement: { id: string; tagName: string; textContent: string | null; getAttribute(n: string): string | null; closest(s: string): unknown } | null };
const active = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: Doc }).document.activeElement;
    return { id: el?.id ?? "", tag: el?.tagName ?? "", text: el?.textContent ?? "", name: el?.getAttribute("name") ?? "", inForm: !!el?.closest("#rating-form") };
  });

describe.runIf(runBrowserTests)("rating page: keyboard, screen reader, server down", () => {
  let browser: Browser;
  let srv: ViewerServer;
  let studyDir: string;
  let token: string;
  beforeAll(async () => {
    browser = await launchChromium();
    studyDir = join(mkdtempSync(join(tmpdir(), "medsynth-a11y-")), "study");
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 1, items: 2, seed: 5, out: studyDir });
    token = study.raters[0].token;
    srv = await startViewerServer({ study: studyDir, port: 0 });
  });
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });

  it("a skip link first, a progress bar and go-to field instead of task buttons; focus on the next heading after a save; status in aria-live", async () => {
    const page = await browser.newPage();
    await page.goto(`${srv.url}/rate/${token}`);
    await page.waitForSelector("#rating-form");
    expect(await page.locator("nav.tasks button, .task-dot").count()).toBe(0);
    expect(await page.getAttribute("#progress-bar", "max")).toBe("6");
    expect(await page.evaluate(() => (globalThis as unknown as { document: { getElementById(i: string): { value: number } } }).document.getElementById("progress-bar").value)).toBe(0);
    expect(await page.getAttribute("#status", "aria-live")).toBe("polite");
    // first Tab: the skip link; Enter: into the form
    await page.keyboard.press("Tab");
    expect((await active(page)).id).toBe("skip-to-form");
    await page.keyboard.press("Enter");
    expect(await active(page)).toMatchObject({ inForm: true, name: `score-${DIM}` });
    // without the skip link, the form is still only a few Tab stops away (go-to field, Go, next unrated)
    await page.reload();
    await page.waitForSelector("#rating-form");
    let presses = 0;
    while (!(await active(page)).inForm && presses < 50) {
      await page.keyboard.press("Tab");
      presses++;
    }
    expect(presses).toBeLessThanOrEqual(5);
    // rate with the keyboard: Space checks the focused radio, Enter in the comment's form submits via the button
    await page.keyboard.press("Space");
    await page.focus("#save");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (globalThis as unknown as { document: Doc }).document.activeElement?.id === "task-title");
    expect((await active(page)).text).toContain("Task 2 of 6");
    expect(await page.textContent("#status")).toBe("Saved.");
    expect(await page.textContent("#progress")).toBe("rater1 · 1 of 6 rated");
    // go to task 5 by number: the heading of task 5 takes focus
    await page.fill("#goto-input", "5");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (globalThis as unknown as { document: Doc }).document.activeElement?.textContent?.startsWith("Task 5 of 6") ?? false);
    await page.fill("#goto-input", "9");
    await page.keyboard.press("Enter");
    expect(await page.textContent("#status")).toBe("There is no task 9: choose 1 to 6.");
    await page.close();
  });

  it("a save while the server is down keeps the score and comment, says so, and is retried until the server is back", async () => {
    const port = Number(new URL(srv.url).port);
    const page = await browser.newPage();
    await page.goto(`${srv.url}/rate/${token}#3`);
    await page.waitForSelector("#rating-form");
    await page.check(`input[name="score-${DIM}"][value="4"]`);
    await page.fill('textarea[name="comment"]', "misses the dose");
    await srv.close(); // the server dies
    await page.click("#save");
    await page.waitForSelector("#message.error");
    expect(await page.textContent("#message")).toContain("not saved — the server cannot be reached; try again");
    // a second attempt (after 1 s) failed too: still kept
    await page.waitForFunction(
      () => ((globalThis as unknown as { document: { getElementById(i: string): { textContent: string } | null } }).document.getElementById("message")?.textContent ?? "").includes("retrying in 2 s"),
      undefined,
      { timeout: 5000 },
    );
    expect(await page.isChecked(`input[name="score-${DIM}"][value="4"]`)).toBe(true);
    expect(await page.inputValue('textarea[name="comment"]')).toBe("misses the dose");
    expect(await page.textContent("#task-title")).toContain("Task 3 of 6");
    // the rater moves on to task 4 and starts a comment while task 3 waits
    await page.click("#next");
    await page.waitForSelector("#task-title:has-text('Task 4 of 6')");
    await page.fill('textarea[name="comment"]', "typing");
    // the server comes back on the same port: the retry saves task 3, task 4's input is left alone
    srv = await startViewerServer({ study: studyDir, port });
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { getElementById(i: string): { textContent: string } | null } }).document.getElementById("status")?.textContent === "Task 3 saved.",
      undefined,
      { timeout: 10_000 },
    );
    expect(await page.textContent("#progress")).toBe("rater1 · 2 of 6 rated");
    expect(await page.inputValue('textarea[name="comment"]')).toBe("typing");
    expect((await active(page)).name).toBe("comment");
    await page.click("#prev");
    await page.waitForSelector("#task-title:has-text('Task 3 of 6')");
    expect(await page.isChecked(`input[name="score-${DIM}"][value="4"]`)).toBe(true);
    expect(await page.inputValue('textarea[name="comment"]')).toBe("misses the dose");
    const store = new RatingStore(studyDir);
    const saved = store.forRater("rater1").find((r) => r.comment === "misses the dose");
    store.close();
    expect(saved?.scores[DIM]).toBe(4);
    await page.close();
  });
});

describe.runIf(runBrowserTests)("explorer: sortable headers are buttons with aria-sort", () => {
  let browser: Browser;
  let srv: ViewerServer;
  beforeAll(async () => {
    browser = await launchChromium();
    srv = await startViewerServer({ runs: [makeRunDir()], port: 0 });
  });
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });

  it("sorts from the keyboard and announces the direction", async () => {
    const page = await browser.newPage();
    await page.goto(srv.url + "/");
    await page.waitForSelector("#cells tbody tr");
    const ths = await page.locator("#cells thead th").count();
    expect(await page.locator("#cells thead th > button.sort").count()).toBe(ths);
    expect(await page.locator("#cells thead th[aria-sort]").count()).toBe(0);
    await page.focus('th[data-col="latencyMs"] button');
    await page.keyboard.press("Enter");
    await page.waitForSelector('th[data-col="latencyMs"][aria-sort="ascending"]');
    // focus stays on the header's button after the table is redrawn; Space sorts the other way
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { closest(s: string): { getAttribute(n: string): string } | null } } }).document.activeElement
            .closest("th")
            ?.getAttribute("data-col") ?? null,
      ),
    ).toBe("latencyMs");
    await page.keyboard.press("Space");
    await page.waitForSelector('th[data-col="latencyMs"][aria-sort="descending"]');
    expect(await page.locator("#cells thead th[aria-sort]").count()).toBe(1);
    await page.close();
  });
});
