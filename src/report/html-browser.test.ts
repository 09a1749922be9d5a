/**
 * The report page in a real browser (Debian's chromium, headless, driven by playwright-core):
 * the charts drawn, the table sorting on a click, the filter, no console error, no request to
 * anywhere, and no hostile string ever run. Set REPORT_SCREENSHOT=FILE.png to keep a picture.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import { MemoryStore } from "../testkit/memory-store.js";
import { attempt, fail, ok, seedCensus, seedFifty, seedHistory } from "../testkit/report-fixtures.js";
import { PAYLOADS, hostileStore } from "../testkit/report-hostile.js";
import { renderHtml } from "./html.js";
import { chromiumMissing, launchChromium, requireChromium, watchedPage } from "../testkit/chromium.js";

// What the functions handed to the page use: they run in the browser, and this program is
// compiled without the DOM's types.
interface PageElement {
  tagName: string;
  attributes: ArrayLike<{ name: string }>;
  textContent: string | null;
  hidden: boolean;
  cells: ArrayLike<PageElement>;
}
declare const document: {
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  querySelector(selector: string): (PageElement & { open?: boolean; getBoundingClientRect(): { top: number } }) | null;
  scripts: { length: number };
  body: PageElement;
  scrollingElement: { scrollWidth: number; scrollHeight: number };
};
declare function getComputedStyle(element: PageElement): { fontSize: string };
declare const window: { __pwned?: unknown; innerWidth: number; innerHeight: number };

requireChromium("report --html in headless Chromium");

describe("report --html in headless Chromium", { skip: chromiumMissing !== false }, () => {
  let dir: string;
  let context: BrowserContext;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-wire-report-"));
    context = await launchChromium(dir);
  });

  after(async () => {
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Opens a page of the report, recording console errors, page errors and every request made. */
  async function open(name: string, html: string) {
    const file = join(dir, name);
    await writeFile(file, html);
    const { page, problems, requests } = await watchedPage(context);
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: "load" });
    return { page, problems, requests: () => requests.filter((r) => r !== url) };
  }

  const column = (page: Page, index: number) =>
    page.evaluate(
      (i) => Array.from(document.querySelectorAll("#targets tbody tr"), (r) => r.cells[i]!.textContent!.trim()),
      index,
    );

  test("the charts are drawn, the table sorts on a click, nothing is fetched and nothing complains", async () => {
    const { page, problems, requests } = await open("report.html", renderHtml(seedHistory(seedCensus()).aggregate()));

    const bars = await page.evaluate(() =>
      Object.fromEntries(
        ["chart-runs", "chart-revisions", "chart-latency"].map((id) => [
          id,
          document.querySelectorAll(`#${id} svg.chart rect.bar`).length,
        ]),
      ),
    );
    assert.equal(
      bars["chart-runs"],
      83 + 8,
      "one segment per class in each run: 82 single-class runs, and 9 classes in the census run",
    );
    assert.equal(bars["chart-revisions"], 3);
    assert.equal(bars["chart-latency"], 9);
    const box = await page.locator("#chart-runs svg.chart").boundingBox();
    assert.ok(box && box.width > 300 && box.height > 100, `the runs chart has a size: ${JSON.stringify(box)}`);

    // attempts (column 5) is numeric: ascending, then descending on a second click
    await page.click("#targets thead th:nth-child(6)");
    let attempts = (await column(page, 5)).map((t) => Number(t.replace(/,/g, "")));
    assert.deepEqual(
      attempts,
      [...attempts].sort((a, b) => a - b),
    );
    assert.equal(await page.getAttribute("#targets thead th:nth-child(6)", "aria-sort"), "ascending");
    await page.click("#targets thead th:nth-child(6)");
    attempts = (await column(page, 5)).map((t) => Number(t.replace(/,/g, "")));
    assert.equal(attempts[0], 82, "the target called 82 times comes first");
    assert.deepEqual(
      attempts,
      [...attempts].sort((a, b) => b - a),
    );
    assert.equal(await page.getAttribute("#targets thead th:nth-child(6)", "aria-sort"), "descending");

    // target (column 0) sorts as text; the first click makes it ascending (the healthy servers,
    // mcp0000 to mcp0999, are folded into their own group)
    await page.click("#targets thead th:nth-child(1)");
    const targets = await column(page, 0);
    assert.equal(targets[0], "https://mcp1000.example.com/mcp");
    assert.equal(targets.at(-1), "https://tools.example.org/mcp");

    await page.fill("#filter", "web_page");
    const shown = await page.evaluate(
      () => Array.from(document.querySelectorAll("#targets tbody tr")).filter((r) => !r.hidden).length,
    );
    assert.equal(shown, 9);
    assert.equal(await page.textContent("#shown"), "9 shown");

    if (process.env.REPORT_SCREENSHOT) {
      await page.fill("#filter", "");
      await page.screenshot({ path: process.env.REPORT_SCREENSHOT, fullPage: false });
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(requests(), []);
  });

  test("the sign-in chart's labels are the size of the other charts' labels", async () => {
    const store = new MemoryStore(() => new Date("2026-08-20T09:00:00Z"));
    const causes = ["authorization_server_metadata_not_found", "resource_metadata_not_found", "issuer_mismatch"];
    const targets = causes.map((_, i) => ({
      target: `https://signin${i}.example.com/mcp`,
      kind: "http" as const,
      name: null,
    }));
    const runId = store.startRun("registry.json", targets, {});
    causes.forEach((code, i) => {
      const auth = {
        rules: "2025-11-25",
        verdict: "broken",
        brokenAt: "authorization_server",
        steps: [],
        defects: [
          { code, severity: "error", message: "…", step: "authorization_server", side: "authorization_server" },
        ],
        clients: { strict: "fails", lenient: "fails" },
      };
      store.recordAttempt(
        attempt(runId, targets[i]!.target, `2026-08-20T09:00:0${i}.000Z`, {
          ...fail("auth_required", "http_401", { httpStatus: 401 }),
          auth,
        }),
      );
    });
    store.recordAttempt(
      attempt(runId, "https://fine.example.com/mcp", "2026-08-20T09:00:05.000Z", ok("modern", "2026-07-28")),
    );
    const { page, problems, requests } = await open("signin.html", renderHtml(store.aggregate()));
    for (const width of [1280, 420]) {
      await page.setViewportSize({ width, height: 900 });
      const sizes = await page.evaluate(() => {
        // a label's size on screen: its type size in the chart's units, times the chart's scale
        const shown = (chart: string) => {
          const svg = document.querySelector(`#${chart} svg`) as unknown as {
            getBoundingClientRect(): { width: number };
            viewBox: { baseVal: { width: number } };
          };
          const label = document.querySelector(`#${chart} svg text.tick`) as unknown as Parameters<
            typeof getComputedStyle
          >[0];
          return (
            (parseFloat(getComputedStyle(label).fontSize) * svg.getBoundingClientRect().width) /
            svg.viewBox.baseVal.width
          );
        };
        return { signin: shown("chart-signin"), revisions: shown("chart-revisions"), latency: shown("chart-latency") };
      });
      assert.ok(sizes.signin > 6, JSON.stringify(sizes));
      assert.ok(
        Math.abs(sizes.signin - sizes.revisions) < 0.01 && Math.abs(sizes.signin - sizes.latency) < 0.01,
        `${width} px: ${JSON.stringify(sizes)}`,
      );
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(requests(), []);
  });

  test("no heading stands over nothing: a clean census has no protocol errors section, nor a link to one", async () => {
    const clean = new MemoryStore(() => new Date("2026-08-20T09:00:00Z"));
    const targets = Array.from({ length: 6 }, (_, i) => ({
      target: `https://mcp${i}.example.com/mcp`,
      kind: "http" as const,
      name: null,
    }));
    const run = clean.startRun("clean.txt", targets, {});
    targets.forEach((t, i) =>
      clean.recordAttempt(
        attempt(
          run,
          t.target,
          `2026-08-20T09:00:0${i}Z`,
          i % 3 ? ok("modern", "2026-07-28") : fail("unreachable", "refused"),
        ),
      ),
    );
    clean.finishRun(run);
    for (const [name, agg] of [
      ["clean", clean.aggregate()],
      ["census", seedCensus().aggregate()],
    ] as const) {
      const { page, problems } = await open(`${name}.html`, renderHtml(agg));
      const empty = await page.evaluate(() =>
        Array.from(document.querySelectorAll("h2"))
          .filter((h) => {
            const next = (h as unknown as { nextElementSibling: PageElement | null }).nextElementSibling;
            return !next || /^(H2|FOOTER)$/.test(next.tagName) || (next.textContent ?? "").trim() === "";
          })
          .map((h) => h.textContent),
      );
      assert.deepEqual(empty, [], `${name}: headings with nothing under them`);
      const section = await page.evaluate(() => document.querySelectorAll("#defects, a[href='#defects']").length);
      if (name === "clean") assert.equal(section, 0, "no protocol errors, no section and no link to it");
      else assert.ok(section >= 2, "protocol errors: the section, and the story's link to it");
      assert.deepEqual(problems, []);
    }
  });

  test("hostile strings are shown as text and never run", async () => {
    const { page, problems, requests } = await open("hostile.html", renderHtml(hostileStore().aggregate()));
    const dom = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      scripts: document.scripts.length,
      frames: document.querySelectorAll("iframe, img, object, embed").length,
      handlers: Array.from(document.querySelectorAll("*")).flatMap((el) =>
        Array.from(el.attributes)
          .filter((a) => /^on/i.test(a.name))
          .map((a) => `${el.tagName} ${a.name}`),
      ),
      text: document.body.textContent ?? "",
      rows: document.querySelectorAll("#targets tbody tr, #healthy-targets tbody tr").length,
    }));
    assert.equal(dom.pwned, null);
    assert.equal(dom.scripts, 1);
    assert.equal(dom.frames, 0);
    assert.deepEqual(dom.handlers, []);
    assert.equal(dom.rows, PAYLOADS.length + 1, "markup in a target did not break the table");
    for (const p of PAYLOADS) assert.ok(dom.text.includes(p), `shown as text: ${p}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(requests(), []);
  });

  test("fifty targets at 420 px and 1280 px: no sideways scroll, every target there, a few screens long", async () => {
    const agg = seedFifty().aggregate();
    const { page, problems, requests } = await open("fifty.html", renderHtml(agg));
    // screenshots stay after the test only where a person asked for them (REPORT_SCREENSHOTS=DIR);
    // otherwise they go with the test's own temporary folder
    const shots = process.env.REPORT_SCREENSHOTS ?? join(dir, "screenshots");
    await mkdir(shots, { recursive: true });
    for (const width of [420, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const seen = await page.evaluate(() => ({
        scrollWidth: document.scrollingElement.scrollWidth,
        innerWidth: window.innerWidth,
        height: document.scrollingElement.scrollHeight,
        targets: Array.from(document.querySelectorAll("td.target"), (td) => td.textContent ?? ""),
        healthyOpen: document.querySelector("#healthy")?.open ?? null,
      }));
      assert.ok(seen.scrollWidth <= seen.innerWidth, `${width} px: the page is ${seen.scrollWidth} px wide`);
      if (width === 420) {
        // text in an SVG is drawn at its size times the drawing's scale
        const sizes = await page.evaluate(() =>
          Array.from(
            document.querySelectorAll("svg.chart text"),
            (t) =>
              parseFloat(getComputedStyle(t).fontSize) *
              ((t as unknown as { ownerSVGElement: { getScreenCTM(): { d: number } } }).ownerSVGElement.getScreenCTM()
                .d ?? 1),
          ),
        );
        assert.ok(sizes.length > 10 && Math.min(...sizes) >= 10, `chart labels at ${Math.min(...sizes)} px`);
      }
      assert.deepEqual(
        new Set(seen.targets),
        new Set(agg.perTarget.map((t) => t.target)),
        `${width} px: every target once`,
      );
      assert.equal(seen.targets.length, agg.targets);
      assert.equal(seen.healthyOpen, false, "the healthy servers start folded");
      // the page's length in screens: a layout figure, not a timing
      const screens = seen.height / 900;
      assert.ok(screens <= (width === 420 ? 12 : 8), `${width} px: ${screens.toFixed(1)} screens`);
      const file = join(shots, `report-fifty-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`screenshot at ${width} px (${screens.toFixed(1)} screens): ${file}`);
    }
    // the story's protocol errors point at their list, which names the servers
    await page.click("a.see");
    const listed = await page.evaluate(() => document.querySelector("#defect-kinds")?.textContent ?? "");
    assert.match(listed, /bare_array.*https:\/\/broken16\.example\.net\/v1\/mcp/s);
    // filtering for a healthy server unfolds the group it is in
    await page.fill("#filter", "mcp5.example.com");
    assert.equal(await page.evaluate(() => document.querySelector("#healthy")?.open ?? null), true);
    assert.equal(await page.textContent("#shown"), "1 shown");
    assert.deepEqual(problems, []);
    assert.deepEqual(requests(), []);
  });
});
