/**
 * A rater "on another machine" in Chromium: `annotate serve` listens on 127.0.0.2 with HTTPS
 * (a self-signed certificate made by openssl for the test) and `--public-url`; the printed link
 * opens, rates and saves; plain HTTP on that port gets no rating page; a save over the per-token
 * limit is held on the page (input kept) and said so.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotateServeCommand } from "../../experiments/cli/viewer-commands.ts";
import type { ViewerServer } from "../../viewer/server.ts";
import { createStudy } from "../../viewer/study/study.ts";
import { launchChromium, runBrowserTests } from "../helpers/chromium.ts";
import { makeStudyRun } from "./study-fixtures.ts";

const DIM = "medmeta-semantic-equivalence.semantic_equivalence";
const OPENSSL = "/usr/bin/openssl";
const HOST = "127.0.0.2";

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const s = createServer().listen(0, HOST, () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
    s.on("error", fail);
  });

describe.runIf(runBrowserTests && (existsSync(OPENSSL) || Boolean(process.env.CI)))("rating from another machine (127.0.0.2, HTTPS) in Chromium", () => {
  let browser: Browser;
  let srv: ViewerServer;
  let link: string;
  let port: number;
  beforeAll(async () => {
    browser = await launchChromium();
    const tmp = mkdtempSync(join(tmpdir(), "medsynth-tls-"));
    execFileSync(
      OPENSSL,
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        `/CN=${HOST}`,
        "-addext",
        `subjectAltName=IP:${HOST}`,
        "-keyout",
        join(tmp, "key.pem"),
        "-out",
        join(tmp, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    const dir = join(tmp, "study");
    createStudy(makeStudyRun(), { rubric: "medmeta", raters: 1, items: 2, seed: 3, out: dir });
    port = await freePort();
    const lines: string[] = [];
    srv = await annotateServeCommand(dir, { host: HOST, port, publicUrl: `https://${HOST}:${port}`, tlsCert: join(tmp, "cert.pem"), tlsKey: join(tmp, "key.pem"), saveLimit: 1 }, (l) => lines.push(l));
    link = lines[0].replace(/^rater1: /, "");
    expect(lines.join("\n")).not.toContain("plain HTTP");
  });
  afterAll(async () => {
    await srv?.close();
    await browser?.close();
  });

  it("opens the printed https link, saves a rating; the next save within the limit's window is held with the input kept", async () => {
    expect(link).toMatch(new RegExp(`^https://127\\.0\\.0\\.2:${port}/rate/[A-Za-z0-9_-]{24}$`));
    const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await ctx.newPage();
    const res = await page.goto(link);
    expect(res?.status()).toBe(200);
    expect(page.url().startsWith("https://127.0.0.2:")).toBe(true);
    await page.waitForSelector("#rating-form");
    await page.check(`input[name="score-${DIM}"][value="5"]`);
    await page.click("#save");
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { getElementById(i: string): { textContent: string } | null } }).document.getElementById("status")?.textContent === "Saved.",
    );
    expect(await page.textContent("#progress")).toBe("rater1 · 1 of 6 rated");
    // second save at once: over the 1-per-minute limit
    await page.check(`input[name="score-${DIM}"][value="2"]`);
    await page.fill('textarea[name="comment"]', "second");
    await page.click("#save");
    await page.waitForSelector("#message.error");
    expect(await page.textContent("#message")).toMatch(/^not saved yet — too many saves in a short time; saving again in \d+ s/);
    expect(await page.isChecked(`input[name="score-${DIM}"][value="2"]`)).toBe(true);
    expect(await page.inputValue('textarea[name="comment"]')).toBe("second");
    await ctx.close();
    // plain HTTP on the TLS port: no rating page
    const plain = await browser.newPage();
    const r = await plain.goto(link.replace("https://", "http://")).catch((e: Error) => e);
    expect(r instanceof Error ? "failed" : r?.status()).not.toBe(200);
    await plain.close();
  });
});
