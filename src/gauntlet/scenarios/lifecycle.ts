/** `lifecycle`: the opening and the version the client keeps to, in bodies and headers. */
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../../rules/revisions.js";
import { SPEC, check, notApplicable, notObserved, pass, type ScenarioDef } from "../scenario.js";
import { msg, type View } from "../view.js";
import { ALL, plainTool } from "./common.js";

const LIFECYCLE = `${SPEC}/2025-11-25/basic/lifecycle`;
const HEADERS = `${SPEC}/2025-11-25/basic/transports#protocol-version-header`;

/** The version the conversation settled on, from the initialize answer. */
function negotiated(view: View): string | undefined {
  const init = view.requests("initialize")[0];
  const answer = init ? view.answerTo(init) : undefined;
  const v = answer ? msg(answer)?.result?.protocolVersion : undefined;
  return typeof v === "string" ? v : undefined;
}

export const lifecycle: ScenarioDef = {
  id: "lifecycle",
  title: "The opening and the version kept",
  behaviour: "An exact server with one tool, gauntlet_lifecycle.",
  spec: LIFECYCLE,
  revisions: ALL,
  setup({ server }) {
    plainTool(server, "gauntlet_lifecycle", "Call this tool once with no arguments.");
  },
  checks: [
    check(
      {
        id: "lifecycle.initialize_first",
        severity: "error",
        title: "initialize comes first",
        rule: "On a legacy revision the first request of a connection is initialize (MUST).",
        spec: `${LIFECYCLE}#initialization`,
        bug: "Clients that list tools before initializing get -32600 or a 400 from servers that enforce the lifecycle.",
      },
      (view, fault) => {
        if (view.modern()) return notApplicable("the client spoke 2026-07-28, which has no initialize");
        const first = view.requests().find((e) => msg(e)?.method !== "server/discover");
        if (!first) return notObserved("the client sent no request");
        return msg(first)?.method === "initialize"
          ? pass("initialize came first", [first.line])
          : fault(`the first request was ${String(msg(first)?.method)}, not initialize`, [first.line]);
      },
    ),
    check(
      {
        id: "lifecycle.initialized_sent",
        severity: "error",
        title: "notifications/initialized after the initialize result",
        rule: "After the initialize result and before any request but ping, the client sends notifications/initialized (MUST).",
        spec: `${LIFECYCLE}#initialization`,
        bug: "Servers built on the official SDKs ignore or refuse requests from a client that skipped notifications/initialized.",
      },
      (view, fault) => {
        if (view.modern()) return notApplicable("the client spoke 2026-07-28, which has no initialize");
        const init = view.requests("initialize")[0];
        if (!init) return notObserved("the client never sent initialize");
        const answer = view.answerTo(init);
        const note = view.notifications("notifications/initialized").find((e) => e.line > (answer?.line ?? init.line));
        const early = view
          .requestsAfter(answer?.line ?? init.line, init)
          .find((e) => msg(e)?.method !== "ping" && (!note || e.line < note.line));
        if (early)
          return fault(`${String(msg(early)?.method)} was sent before notifications/initialized`, [early.line]);
        if (!note)
          return notObserved("the client never sent notifications/initialized (nor any request after initialize)");
        return pass("notifications/initialized followed the initialize result", [note.line]);
      },
    ),
    check(
      {
        id: "lifecycle.version_kept",
        severity: "error",
        title: "The negotiated version, in bodies and in the MCP-Protocol-Version header",
        rule: "Every later HTTP request carries MCP-Protocol-Version with the negotiated version (2025-06-18 on: MUST); a 2026-07-28 client names one version in every request's _meta.",
        spec: HEADERS,
        bug: "Clients that send the version they asked for rather than the one the server answered get 400 from servers that check the header.",
      },
      (view, fault) => {
        const modern = view.modern();
        const version = modern ? "2026-07-28" : negotiated(view);
        if (!version) return notObserved("no version was settled");
        const checked = view
          .requests()
          .filter((e) => msg(e)?.method !== "initialize" && msg(e)?.method !== "server/discover");
        if (checked.length === 0) return notObserved("the client sent no request after the opening");
        for (const e of checked) {
          const body = msg(e)?.params?._meta?.[META_PROTOCOL_VERSION];
          if (modern && body !== version)
            return fault(`a request's _meta names ${JSON.stringify(body)}, not ${version}`, [e.line]);
          const header = e.record.http?.protocolVersion;
          const required = view.transport === "http" && version >= "2025-06-18";
          if (required && header !== version)
            return fault(`MCP-Protocol-Version was ${JSON.stringify(header ?? null)}, not ${version}`, [e.line]);
          if (header !== undefined && header !== version)
            return fault(`MCP-Protocol-Version was ${JSON.stringify(header)}, not ${version}`, [e.line]);
        }
        return pass(`every request kept to ${version}`, [checked[0]!.line]);
      },
    ),
    check(
      {
        id: "lifecycle.request_meta",
        severity: "error",
        title: "2026-07-28 request metadata",
        rule: "On 2026-07-28 every request carries _meta protocolVersion and clientCapabilities, and over HTTP the Mcp-Method header (and Mcp-Name for tools/call, resources/read, prompts/get) matching the body (MUST).",
        spec: `${SPEC}/2026-07-28/basic/transports`,
        bug: "Stateless 2026-07-28 servers and gateways route on these headers: a client that leaves them out gets 400 (-32020).",
      },
      (view, fault) => {
        const modern = view.requests().filter((e) => msg(e)?.params?._meta?.[META_PROTOCOL_VERSION] === "2026-07-28");
        if (modern.length === 0) return notApplicable("the client did not speak 2026-07-28");
        for (const e of modern) {
          const m = msg(e)!;
          if (typeof m.params?._meta?.[META_CLIENT_CAPABILITIES] !== "object")
            return fault(`${String(m.method)} has no _meta clientCapabilities`, [e.line]);
          const http = e.record.http;
          if (!http) continue;
          if (http.mcpMethod !== m.method)
            return fault(`Mcp-Method was ${JSON.stringify(http.mcpMethod ?? null)}, not ${String(m.method)}`, [e.line]);
          const name = m.method === "resources/read" ? m.params?.uri : m.params?.name;
          if (["tools/call", "resources/read", "prompts/get"].includes(String(m.method)) && http.mcpName !== name)
            return fault(`Mcp-Name was ${JSON.stringify(http.mcpName ?? null)}, not ${JSON.stringify(name)}`, [e.line]);
        }
        return pass("every 2026-07-28 request carried its metadata", [modern[0]!.line]);
      },
    ),
  ],
};
