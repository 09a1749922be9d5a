/**
 * `report --serve` in a real browser (Debian's Chromium, headless): at 1280 and 420 px wide, every
 * server reached from the index through its pages, no console error, nothing scrolling sideways,
 * and none of the hostile strings a census stored ever running.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { BrowserContext } from "playwright-core";
import { SqliteStore } from "../../census/sqlite-store.js";
import { attempt } from "../../testkit/store-contract.js";
import { chromiumMissing, launchChromium, requireChromium, watchedPage } from "../../testkit/chromium.js";
import { fillHistory } from "../../testkit/census-history.js";
import { PAYLOADS } from "../../testkit/report-hostile.js";
import { serveReport, type ReportServer } from "./app.js";

// run in the browser, and this program is compiled without the DOM's types
declare const document: {
  scrollingElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }>;
};
declare const window: { __pwned?: unknown };

const NOW = Date.parse("2026-12-03T12:00:00.000Z");

requireChromium("report --serve in headless Chromium");

describe("report --serve in headless Chromium", { skip: chromiumMissing !== false }, () => {
  let dir: string;
  let store: SqliteStore;
  let server: ReportServer;
  let contexts: BrowserContext[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcp-wire-serve-browser-"));
    const file = join(dir, "census.db");
    const writer = new SqliteStore(file);
    await fillHistory(writer, { targets: 130, runs: 4, now: NOW - 3_600_000 }, (as) => writer.recordAttempts(as));
    // what a hostile registry could make a census store: every string a server sent, and the target itself
    const run = await writer.startRun("hostile", [], {});
    for (const [i, p] of PAYLOADS.entries()) {
      await writer.recordAttempt(
        attempt(run, `https://evil${i}.example/${p}`, new Date(NOW - 60_000 + i).toISOString(), {
          class: i % 2 ? "rpc_error" : "ok",
          detail: p,
          advice: p,
          serverName: p,
          serverVersion: p,
          rpcMessage: p,
        }),
      );
    }
    await writer.close();
    store = new SqliteStore(file, { readonly: true });
    server = await serveReport(store, { now: () => NOW });
    contexts = await Promise.all([
      launchChromium(join(dir, "wide"), { width: 1280, height: 900 }),
      launchChromium(join(dir, "narrow"), { width: 420, height: 860 }),
    ]);
  });

  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await server?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [i, width] of [1280, 420].entries()) {
    test(`at ${width} px: every server reached from the index, no error, no sideways scroll, nothing injected runs`, async () => {
      const { page, problems, requests } = await watchedPage(contexts[i]!);
      const origin = new URL(server.url).origin;
      const servers = new Set<string>();
      let next: string | null = server.url;
      let pages = 0;
      while (next) {
        await page.goto(next, { waitUntil: "load" });
        pages++;
        const fits = await page.evaluate(
          () => document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth,
        );
        assert.ok(fits, `the index page ${pages} scrolls sideways at ${width} px`);
        for (const href of await page.evaluate(() =>
          Array.from(document.querySelectorAll("td.target a"), (a) => a.getAttribute("href")!),
        ))
          servers.add(href);
        const more: string | null = await page.evaluate(
          () =>
            Array.from(document.querySelectorAll("nav.pages a"), (a) => a.getAttribute("href")!).find((h) =>
              h.includes("page="),
            ) ?? null,
        );
        next = more && pages < 2 ? new URL(more, origin).href : null;
      }
      assert.equal(servers.size, 130 + PAYLOADS.length, "every server has a link from the index");
      // each hostile server's page, and a sample of the rest, opened in the browser
      const hostile = [...servers].slice(-PAYLOADS.length);
      for (const href of [...[...servers].slice(0, 3), ...hostile]) {
        const res = await page.goto(new URL(href, origin).href, { waitUntil: "load" });
        assert.equal(res?.status(), 200, href);
        assert.ok(
          await page.evaluate(() => document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth),
          `${href} scrolls sideways at ${width} px`,
        );
      }
      await page.goto(new URL("/?q=evil", origin).href, { waitUntil: "load" });
      assert.equal(await page.evaluate(() => window.__pwned), undefined, "no stored string ran as code");
      assert.deepEqual(problems, []);
      assert.deepEqual(
        requests.filter((r) => !r.startsWith(origin)),
        [],
        "nothing is fetched from anywhere else",
      );
    });
  }
});
