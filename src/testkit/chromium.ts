/**
 * Debian's Chromium, headless, driven by playwright-core, for the tests that look at a page in a
 * real browser. Without the browser a test says so as one counted test: skipped with the reason
 * outside CI, failed in CI (CI=true), so a green CI run always means a browser looked.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { BrowserContext, Page } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or false when they can. */
export const chromiumMissing: string | false = existsSync(CHROMIUM)
  ? false
  : `no ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does)`;

/** Registers the one counted test that stands for `what` when the browser is missing. */
export function requireChromium(what: string): void {
  const missing = chromiumMissing;
  if (missing) test(what, { skip: process.env.CI === "true" ? false : missing }, () => assert.fail(missing));
}

/** A fresh headless browser with its profile under `dir`; closed network traffic kept quiet. */
export async function launchChromium(dir: string, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const { chromium } = await import("playwright-core");
  return chromium.launchPersistentContext(join(dir, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport,
    timeout: 60_000,
  });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and warnings, and uncaught page errors, so far. */
  problems: string[];
  /** Every URL the page requested, so far. */
  requests: string[];
}

/** A new page that records what went wrong in it and every request it made. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  return { page, problems, requests };
}
