/** `pagination`, `pagination_stuck`, `empty_cursor`: how the client walks `tools/list`'s pages. */
import type { JsonObject } from "../../codec/message.js";
import { ResponseError } from "../../peer/errors.js";
import { INVALID_PARAMS } from "../../rules/error-codes.js";
import { SPEC, check, notObserved, pass, type ScenarioDef } from "../scenario.js";
import { msg, type View } from "../view.js";
import { ALL, plainTool, tool } from "./common.js";

const PAGINATION = `${SPEC}/2025-11-25/server/utilities/pagination`;
/** Pages a stuck cursor is followed for before the client counts as looping. */
const STUCK_LIMIT = 100;
/** The stuck server stops giving a cursor here, so a looping client cannot hang the run. */
const STUCK_CAP = 1000;

function cursorOf(e: { value: unknown }): unknown {
  return msg(e as never)?.params?.cursor;
}

function lists(view: View) {
  return view.requests("tools/list");
}

const PAGES = ["gauntlet_page_one", "gauntlet_page_two", "gauntlet_page_three"];
const CURSORS = [undefined, "gauntlet-page-2", "gauntlet-page-3"];

export const pagination: ScenarioDef = {
  id: "pagination",
  title: "tools/list in three pages",
  behaviour: "tools/list answers in three pages, one tool each; only the last page lists gauntlet_page_three.",
  spec: PAGINATION,
  revisions: ALL,
  setup({ server }) {
    for (const name of PAGES) plainTool(server, name, "Call this tool once with no arguments.");
    server.method("tools/list", (params: JsonObject) => {
      const page = CURSORS.indexOf(params.cursor as string | undefined);
      if (page < 0) throw new ResponseError(INVALID_PARAMS, "Invalid cursor");
      const result: JsonObject = { tools: [server.tools.get(PAGES[page]!)!] };
      if (page < 2) result.nextCursor = CURSORS[page + 1]!;
      return result;
    });
  },
  checks: [
    check(
      {
        id: "pagination.all_pages",
        severity: "error",
        title: "Every page is fetched",
        rule: "A client that lists follows nextCursor until a page has none, or it misses what later pages hold.",
        spec: PAGINATION,
        bug: "The official v1 SDK's listTools() returns one page: apps never see the tools on page two and three.",
      },
      (view, fault) => {
        const all = lists(view);
        if (all.length === 0) return notObserved("the client never listed tools");
        const last = all.find((e) => cursorOf(e) === CURSORS[2]);
        const second = all.find((e) => cursorOf(e) === CURSORS[1]);
        if (last && second) return pass("all three pages were fetched", [second.line, last.line]);
        return fault(`the client fetched ${second ? "two pages" : "only the first page"} of three`, [all[0]!.line]);
      },
    ),
    check(
      {
        id: "pagination.last_page_called",
        severity: "error",
        title: "The tool only the last page lists is called",
        rule: "The tools of every page are the server's tools: the one on page three is called like the others.",
        spec: PAGINATION,
        bug: "Agents built on one-page listings never call a tool past the first page.",
      },
      (view, fault) => {
        if (lists(view).length === 0) return notObserved("the client never listed tools");
        const call = view.calls(PAGES[2])[0];
        return call
          ? pass("gauntlet_page_three was called", [call.line])
          : fault("gauntlet_page_three was never called");
      },
    ),
  ],
};

export const paginationStuck: ScenarioDef = {
  id: "pagination_stuck",
  title: "A cursor that never advances",
  behaviour: `Every page lists gauntlet_stuck and the same nextCursor; from page ${STUCK_CAP} on, no cursor.`,
  spec: PAGINATION,
  revisions: ALL,
  setup({ server }) {
    plainTool(server, "gauntlet_stuck", "Call this tool once with no arguments.");
    let pages = 0;
    server.method("tools/list", () => {
      pages++;
      const result: JsonObject = { tools: [server.tools.get("gauntlet_stuck")!] };
      if (pages < STUCK_CAP) result.nextCursor = "gauntlet-same-cursor";
      return result;
    });
  },
  checks: [
    check(
      {
        id: "pagination_stuck.stops",
        severity: "error",
        title: "A repeating cursor does not loop the client",
        rule: `A client stops by itself (an error is fine) when pages do not advance: within ${STUCK_LIMIT} pages here.`,
        spec: PAGINATION,
        bug: "The AI SDK and LangChain's MCP adapters page forever on a cursor that repeats: one agent sent about 170,000 requests.",
      },
      (view, fault) => {
        const all = lists(view);
        if (all.length === 0) return notObserved("the client never listed tools");
        const paged = all.filter((e) => cursorOf(e) !== undefined);
        if (paged.length > STUCK_LIMIT)
          return fault(`the client followed the same cursor ${paged.length} times`, [paged[STUCK_LIMIT]!.line]);
        return pass(`the client stopped after ${paged.length} repeated page${paged.length === 1 ? "" : "s"}`, [
          all[all.length - 1]!.line,
        ]);
      },
    ),
  ],
};

export const emptyCursor: ScenarioDef = {
  id: "empty_cursor",
  title: `"nextCursor": "" is a cursor`,
  behaviour:
    'The first page lists gauntlet_before_empty with "nextCursor": ""; the page for "" lists gauntlet_after_empty.',
  spec: `${SPEC}/2026-07-28/server/utilities/pagination`,
  revisions: ["2026-07-28"],
  setup({ server }) {
    plainTool(server, "gauntlet_before_empty", "Call this tool once with no arguments.");
    server.tools.define(tool("gauntlet_after_empty", "Call this tool once with no arguments."), () => ({
      content: [{ type: "text", text: "after the empty cursor" }],
    }));
    server.method("tools/list", (params: JsonObject) => {
      if (params.cursor === "") return { tools: [server.tools.get("gauntlet_after_empty")!] };
      if (params.cursor !== undefined) throw new ResponseError(INVALID_PARAMS, "Invalid cursor");
      return { tools: [server.tools.get("gauntlet_before_empty")!], nextCursor: "" };
    });
  },
  checks: [
    check(
      {
        id: "empty_cursor.followed",
        severity: "error",
        title: "An empty-string cursor is followed",
        rule: 'On 2026-07-28 a nextCursor of "" is a cursor like any other: its presence means there are more results.',
        spec: `${SPEC}/2026-07-28/server/utilities/pagination`,
        bug: 'Clients test the cursor for truthiness and read "" as the end, missing every later page.',
      },
      (view, fault) => {
        const all = lists(view);
        if (all.length === 0) return notObserved("the client never listed tools");
        const next = all.find((e) => cursorOf(e) === "");
        return next
          ? pass('the client asked for the page of ""', [next.line])
          : fault('the client stopped at "nextCursor": ""', [all[0]!.line]);
      },
    ),
  ],
};
