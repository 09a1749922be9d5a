/**
 * Scenarios about what the server signals and how the client ends: `list_changed` (a new tool
 * announced), `progress` (a long call that reports), `shutdown` (how a stdio server is ended).
 */
import { REVISIONS } from "../../rules/revisions.js";
import { SPEC, check, notObserved, pass, type ScenarioDef } from "../scenario.js";
import { msg } from "../view.js";
import { plainTool, text, tool } from "./common.js";
import { STREAM_CLOSED } from "../tape.js";

export const listChanged: ScenarioDef = {
  id: "list_changed",
  title: "A tool added and announced",
  behaviour:
    "After the first call of gauntlet_list_changed the server adds gauntlet_added and sends notifications/tools/list_changed on the call's own stream (2026-07-28: only on a subscriptions/listen stream).",
  spec: `${SPEC}/2025-11-25/server/tools#list-changed-notification`,
  revisions: REVISIONS,
  capabilities: { tools: { listChanged: true } },
  setup({ server }) {
    let added = false;
    server.tools.define(
      tool("gauntlet_list_changed", "Call this tool once with no arguments."),
      async (_a, context) => {
        if (!added) {
          added = true;
          plainTool(server, "gauntlet_added", "Call this tool once with no arguments.");
          if (context.era === "legacy") await context.notify("notifications/tools/list_changed", {});
        }
        return text("gauntlet_list_changed: a tool was added");
      },
    );
  },
  checks: [
    check(
      {
        id: "list_changed.relisted",
        severity: "warning",
        title: "The client lists again on list_changed",
        rule: "A client that is told the tool list changed SHOULD list the tools again to see the change.",
        spec: `${SPEC}/2025-11-25/server/tools#list-changed-notification`,
        bug: "Clients that cache the first listing never offer tools a server adds later (a plugin loaded, a sign-in completed).",
      },
      (view, fault) => {
        const told = view.entries.find(
          (e) => e.record.from === "server" && msg(e)?.method === "notifications/tools/list_changed",
        );
        if (!told) {
          if (view.modern())
            return notObserved("the client opened no subscriptions/listen stream, so it was never told");
          return notObserved("the client never called gauntlet_list_changed");
        }
        const again = view.requests("tools/list").find((e) => e.line > told.line);
        return again
          ? pass("the client listed again", [told.line, again.line])
          : fault("the client never listed again", [told.line]);
      },
    ),
    check(
      {
        id: "list_changed.new_tool_called",
        severity: "warning",
        title: "The new tool is called",
        rule: "A tool the server added is the server's like the others: the expected client calls it.",
        spec: `${SPEC}/2025-11-25/server/tools#list-changed-notification`,
        bug: "Clients that list again but keep the old set in the model's context never use the new tool.",
      },
      (view, fault) => {
        const told = view.entries.find(
          (e) => e.record.from === "server" && msg(e)?.method === "notifications/tools/list_changed",
        );
        if (!told) return notObserved("the client was never told the list changed");
        const call = view.calls("gauntlet_added")[0];
        return call
          ? pass("gauntlet_added was called", [call.line])
          : fault("gauntlet_added was never called", [told.line]);
      },
    ),
  ],
};

/** How long the slow tool takes, and how often it reports. */
const SLOW_MS = 70_000;
const PROGRESS_EVERY = 5_000;

export const progress: ScenarioDef = {
  id: "progress",
  title: "A 70 s tool that reports progress",
  behaviour: "gauntlet_progress answers after 70 s, sending progress every 5 s to the client's progressToken.",
  spec: `${SPEC}/2025-11-25/basic/utilities/progress`,
  revisions: REVISIONS,
  flag: "slow",
  deadlineMs: 120_000,
  scriptedMs: SLOW_MS,
  setup({ server }) {
    server.tools.define(
      tool("gauntlet_progress", "Call this tool once with no arguments; it takes 70 seconds."),
      async (_a, context) => {
        for (let t = PROGRESS_EVERY; t <= SLOW_MS; t += PROGRESS_EVERY) {
          await new Promise<void>((resolve, reject) => {
            const cancelled = () => (clearTimeout(timer), reject(new Error("cancelled")));
            // one listener at a time: fourteen steps would otherwise leave fourteen on the signal
            const timer = setTimeout(() => {
              context.signal.removeEventListener("abort", cancelled);
              resolve();
            }, PROGRESS_EVERY);
            context.signal.addEventListener("abort", cancelled, { once: true });
          });
          await context.progress(t, SLOW_MS, "working");
        }
        return text("gauntlet_progress: done");
      },
    );
  },
  checks: [
    check(
      {
        id: "progress.waited",
        severity: "info",
        title: "A call that reports progress is waited for, or cancelled",
        rule: "A client may reset its timeout on progress; one that gives up cancels the call (SHOULD): notifications/cancelled, or on 2026-07-28 over HTTP closing the call's stream; giving up silently is noted.",
        spec: `${SPEC}/2025-11-25/basic/utilities/progress`,
        bug: "Clients with a fixed 60 s request timeout give up on a long tool that is reporting progress.",
      },
      (view, fault) => {
        const call = view.calls("gauntlet_progress")[0];
        if (!call) return notObserved("the client never called gauntlet_progress");
        const answer = view.answerTo(call);
        if (answer && msg(answer)?.result !== undefined)
          return pass("the client waited for the answer", [call.line, answer.line]);
        const id = msg(call)?.id;
        const cancel = view.notifications("notifications/cancelled").find((e) => msg(e)?.params?.requestId === id);
        if (cancel) return pass("the client gave up and said so", [call.line, cancel.line]);
        // 2026-07-28 Streamable HTTP: closing the request's stream is the cancellation, and no
        // notifications/cancelled is expected
        const closed = view.entries.find(
          (e) =>
            e.line > call.line &&
            e.record.conversation === call.record.conversation &&
            e.record.event === `${STREAM_CLOSED}${JSON.stringify(id)}`,
        );
        if (closed)
          return pass("the client gave up and closed the call's stream, which cancels it", [call.line, closed.line]);
        return fault("the client gave up without notifications/cancelled", [call.line]);
      },
    ),
  ],
};

export const shutdown: ScenarioDef = {
  id: "shutdown",
  title: "How the client ends a stdio server",
  behaviour: "The server records its stdin ending and any signal, and lingers 500 ms after stdin ends.",
  spec: `${SPEC}/2025-11-25/basic/lifecycle#shutdown`,
  revisions: REVISIONS,
  transports: ["stdio"],
  setup({ server }) {
    plainTool(server, "gauntlet_shutdown", "Call this tool once with no arguments, then close.");
  },
  checks: [
    check(
      {
        id: "shutdown.clean",
        severity: "error",
        title: "stdin is closed before any signal",
        rule: "A client ends a stdio server by closing its stdin first, SIGTERM only if it lingers, SIGKILL last; a server left running is a leak.",
        spec: `${SPEC}/2025-11-25/basic/lifecycle#stdio`,
        bug: "Hosts that SIGKILL their servers lose what the server had not flushed, and hosts that never end them leak processes.",
      },
      (view, fault) => {
        const processes = new Map<string, string[]>();
        for (const e of view.entries) {
          const c = e.record.conversation ?? "";
          if (!processes.has(c)) processes.set(c, []);
          if (e.record.event) processes.get(c)!.push(e.record.event);
        }
        if (processes.size === 0) return notObserved("no server process was started");
        let worst = pass("every server process saw stdin end first");
        for (const [c, events] of processes) {
          const first = events.find((e) => e === "stdin_end" || e.startsWith("signal:"));
          const exited = events.includes("exit");
          const evidence = view.entries.filter((e) => e.record.conversation === c && e.record.event).map((e) => e.line);
          if (!exited) return fault(`server process ${c} was killed (SIGKILL) or left running`, evidence);
          if (first?.startsWith("signal:"))
            worst = {
              outcome: "warn",
              message: `server process ${c} got ${first.slice(7)} before stdin ended`,
              evidence,
            };
        }
        return worst;
      },
    ),
  ],
};
