/** Command lines that replay a failing request, with every credential shown as `<redacted>`. */
import type { Revision } from "../rules/revisions.js";
import {
  LATEST_LEGACY_REVISION,
  LATEST_REVISION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
} from "../rules/revisions.js";
import { redact, redactorOf } from "../secrets/redact.js";
import type { ExchangeRecord } from "../transport/http/client.js";
import { VERSION } from "../version.js";

/** Who a repro line says is calling when the caller does not say. */
const REPRO_CLIENT = { name: "mcp-wire-probe", version: VERSION };

/** Quotes for a POSIX shell. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlRepro(x: ExchangeRecord, secrets: Record<string, string> | undefined): string {
  const shown = redactorOf(secrets);
  // redacted before quoting: a quoted secret would no longer look like one
  const parts = ["curl", "-sS", "-i", "-X", x.httpMethod, shellQuote(shown.text(x.url))];
  for (const [name, value] of Object.entries(x.requestHeaders ?? {}))
    parts.push("-H", shellQuote(`${name}: ${shown.headerValue(name, value)}`));
  if (x.httpMethod === "POST" && x.requestBody !== undefined)
    parts.push("--data-raw", shellQuote(shown.text(x.requestBody)));
  return parts.join(" ");
}

/** The steps of an opening a stdio repro line can replay. */
export type ReplayStep = "server/discover" | "initialize" | "tools/list";

export interface StdioReplay {
  /** The step that failed (default: the first the probe sends, for `revision`). */
  step?: ReplayStep;
  /** The revision the probe was told to speak (`-r`), or the one the session opened with for `tools/list`. */
  revision?: Revision;
  clientInfo?: { name: string; version: string };
}

/**
 * Pipes into the server's command the messages that lead to the step that failed and that step
 * itself, as the probe sent them (identity included, as the HTTP repro line replays it): a
 * stalled `initialize` is replayed as `initialize`, a `tools/list` after the opening it needs.
 */
export function stdioRepro(command: string, args: readonly string[], replay: StdioReplay = {}): string {
  const clientInfo = replay.clientInfo ?? REPRO_CLIENT;
  const revision = replay.revision;
  const legacy = revision !== undefined && revision !== LATEST_REVISION;
  const step = replay.step ?? (legacy ? "initialize" : "server/discover");
  const modernMeta = {
    [META_PROTOCOL_VERSION]: LATEST_REVISION,
    [META_CLIENT_CAPABILITIES]: {},
    [META_CLIENT_INFO]: clientInfo,
  };
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: legacy ? revision : LATEST_LEGACY_REVISION, capabilities: {}, clientInfo },
  };
  let messages: object[];
  if (step === "server/discover")
    messages = [{ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: modernMeta } }];
  else if (step === "initialize") messages = [initialize];
  else if (legacy)
    messages = [
      initialize,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
  else messages = [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta } }];
  return `printf '%s\\n' ${messages.map((m) => shellQuote(JSON.stringify(m))).join(" ")} | ${[command, ...args].map((w) => shellQuote(redact(w))).join(" ")}`;
}
