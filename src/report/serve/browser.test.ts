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
import { fillBusyServer, fillHistory } from "../../testkit/census-history.js";
import { PAYLOADS } from "../../testkit/report-hostile.js";
import { serveReport, type ReportServer } from "./app.js";
import { serverId } from "./model.js";

// run in the browser, and this program is compiled without the DOM's types
interface Node {
  nodeType: number;
  textContent: string | null;
}
interface Element extends Node {
  childNodes: ArrayLike<Node>;
  ownerSVGElement?: { getScreenCTM(): { a: number; d: number } | null } | null;
  tagName: string;
  getAttribute(n: string): string | null;
  getBoundingClientRect(): { width: number; height: number };
  querySelectorAll(s: string): ArrayLike<Element>;
}
declare const document: {
  scrollingElement: { scrollWidth: number; clientWidth: number };
  querySelector(s: string): Element | null;
  querySelectorAll(s: string): ArrayLike<Element>;
};
declare const window: { __pwned?: unknown };
declare function getComputedStyle(e: Element): { fontSize: string; fill: string; display: string };

const BUSY = "https://busy.example.com/mcp";
const DOWN = "https://down.example.com/mcp";

const NOW = Date.parse("2026-12-03T12:00:00.000Z");

requireChromium("report --serve in headless Chromium");

describe("report --serve in headless Chromium", { skip: chromiumMissing !== false }, () => {
  let dir: string;
  let store: SqliteStore;
  let server: ReportServer;
  let proxied: ReportServer;
  let contexts: BrowserContext[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcp-wire-serve-browser-"));
    const file = join(dir, "census.db");
    const writer = new SqliteStore(file);
    await fillHistory(writer, { targets: 130, runs: 4, now: NOW - 3_600_000 }, (as) => writer.recordAttempts(as));
    // what a hostile registry could make a census store: every string a server sent, and the target itself
    const run = await writer.startRun("hostile", [], {});
    await writer.recordAttempts(
      [...PAYLOADS.entries()].map(([i, p]) =>
        attempt(run, `https://evil${i}.example/${p}`, new Date(NOW - 60_000 + i).toISOString(), {
          class: i % 2 ? "rpc_error" : "ok",
          detail: p,
          advice: p,
          serverName: p,
          serverVersion: p,
          rpcMessage: p,
        }),
      ),
    );
    // a server called six times a day for a month, and one that could not be reached at the last call
    await fillBusyServer(writer, BUSY, { days: 30, perDay: 6, now: NOW - 120_000 }, (as) => writer.recordAttempts(as));
    const down = await writer.startRun("down", [], {});
    await writer.recordAttempt(
      attempt(down, DOWN, new Date(NOW - 30_000).toISOString(), { class: "unreachable", detail: "refused" }),
    );
    await writer.close();
    store = new SqliteStore(file, { readonly: true });
    server = await serveReport(store, { now: () => NOW });
    proxied = await serveReport(store, { now: () => NOW, publicUrl: "https://status.example.com/" });
    contexts = await Promise.all([
      launchChromium(join(dir, "wide"), { width: 1280, height: 900 }),
      launchChromium(join(dir, "narrow"), { width: 420, height: 860 }),
    ]);
  });

  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await server?.close();
    await proxied?.close();
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
      assert.equal(servers.size, 130 + PAYLOADS.length + 2, "every server has a link from the index");
      // each hostile server's page, and a sample of the rest, opened in the browser
      const hostile = [...servers]
        .filter((h) => !h.includes(serverId(BUSY)) && !h.includes(serverId(DOWN)))
        .slice(-PAYLOADS.length);
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

  for (const [i, width] of [1280, 420].entries()) {
    test(`at ${width} px: a busy server's latency is one column a day, every label at least 10 px`, async () => {
      const { page, problems } = await watchedPage(contexts[i]!);
      await page.goto(new URL(`/server/${serverId(BUSY)}`, server.url).href, { waitUntil: "load" });
      const chart = await page.evaluate(() => {
        const figure = document.querySelector("figure.latency")!;
        // the size a label is drawn at: text inside an SVG scales with the drawing
        const sizes = Array.from(figure.querySelectorAll("*"))
          .filter(
            (e) =>
              e.tagName !== "title" &&
              Array.from(e.childNodes).some((n) => n.nodeType === 3 && n.textContent!.trim() !== ""),
          )
          .map((e) => parseFloat(getComputedStyle(e).fontSize) * (e.ownerSVGElement?.getScreenCTM()?.d ?? 1));
        return {
          sizes,
          days: figure.querySelectorAll("g.day").length,
          narrowest: Math.min(
            ...Array.from(figure.querySelectorAll("rect.median"), (r) => r.getBoundingClientRect().width),
          ),
        };
      });
      assert.ok(chart.sizes.length >= 5, "the scale and the span are labelled");
      assert.ok(Math.min(...chart.sizes) >= 10, `labels drawn at ${chart.sizes.join(", ")} px`);
      assert.ok(chart.days >= 29 && chart.days <= 30, `${chart.days} columns for 180 attempts over 30 days`);
      assert.ok(chart.narrowest >= 4, `bars ${chart.narrowest} px wide`);
      assert.deepEqual(problems, []);
    });
  }

  test("at 420 px, where the column heads are hidden, the list can still be sorted", async () => {
    const { page, problems } = await watchedPage(contexts[1]!);
    await page.goto(server.url, { waitUntil: "load" });
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.querySelector("#servers thead")!).display),
      "none",
    );
    const control = await page.evaluate(
      () => document.querySelector("select[name=sort]")?.getBoundingClientRect().width ?? 0,
    );
    assert.ok(control > 0, "a sort control is shown");
    await page.selectOption("select[name=sort]", "p95");
    await page.selectOption("select[name=dir]", "desc");
    await Promise.all([page.waitForURL(/sort=p95/), page.click("form.filter button[type=submit]")]);
    assert.match(page.url(), /sort=p95&dir=desc/);
    const p95s = await page.evaluate(() =>
      Array.from(document.querySelectorAll('td[data-label="p95 24 h"]'), (td) =>
        Number(td.textContent!.replace(/[^0-9]/g, "") || -1),
      ),
    );
    assert.ok(p95s.length > 10);
    assert.deepEqual(
      p95s,
      [...p95s].sort((a, b) => b - a),
      "slowest first",
    );
    assert.deepEqual(problems, []);
  });

  test("unreachable is drawn red, on the index and in the timeline", async () => {
    const { page } = await watchedPage(contexts[1]!);
    await page.goto(new URL("/?status=unreachable", server.url).href, { waitUntil: "load" });
    const fills = await page.evaluate(() => [
      ...Array.from(document.querySelectorAll("#servers svg.swatch rect"), (r) => getComputedStyle(r).fill),
    ]);
    await page.goto(new URL(`/server/${serverId(DOWN)}`, server.url).href, { waitUntil: "load" });
    fills.push(
      ...(await page.evaluate(() =>
        Array.from(document.querySelectorAll("svg.timeline rect[width='4']"), (r) => getComputedStyle(r).fill),
      )),
    );
    assert.ok(fills.length >= 2);
    for (const fill of fills) {
      const [r, g, b] = fill.match(/\d+/g)!.map(Number);
      assert.ok(r! >= 180 && g! <= 90 && b! <= 90, `${fill} is red`);
    }
  });

  test("the badge snippet names the --public-url, at both widths", async () => {
    for (const context of contexts) {
      const { page } = await watchedPage(context);
      await page.goto(new URL(`/server/${serverId(BUSY)}`, proxied.url).href, { waitUntil: "load" });
      const snippet = await page.evaluate(() => document.querySelector(".badge-code code")!.textContent);
      assert.equal(
        snippet,
        `[![MCP status](https://status.example.com/badge/${serverId(BUSY)}.svg)](https://status.example.com/server/${serverId(BUSY)})`,
      );
    }
  });
});
