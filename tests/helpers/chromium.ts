/**
 * Headless Chromium for end-to-end tests: Debian's `chromium` package (/usr/bin/chromium, or
 * $CHROMIUM_PATH) driven by playwright-core — no browser download at install time. Flags keep the
 * browser off the network (this machine's network is closed; without them Chromium tries to reach
 * Google's hosts at every start).
 *
 * `.ci/run` installs the package when it is missing. In CI (`CI` set) a missing browser fails the
 * browser tests; elsewhere they are skipped with a note.
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

/** The Chromium executable. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** True when the executable exists. */
export const hasChromium = existsSync(CHROMIUM_PATH);

/** True when browser tests must run (present, or in CI where absence is a failure). */
export const runBrowserTests = hasChromium || Boolean(process.env.CI);

/**
 * Launch headless Chromium (playwright gives it a fresh, empty profile).
 * @throws Error naming the path and the fix when the executable is missing
 */
export async function launchChromium(): Promise<Browser> {
  if (!hasChromium) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (.ci/run does this) or set CHROMIUM_PATH`);
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
