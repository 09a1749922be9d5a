/** Command lines that replay a failing request, with every credential shown as `<redacted>`. */
import type { Revision } from "../rules/revisions.js";
import { LATEST_LEGACY_REVISION, LATEST_REVISION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { redact, redactorOf } from "../secrets/redact.js";
import type { ExchangeRecord } from "../transport/http/client.js";

/** Who a repro line says is calling when the caller does not say. */
const REPRO_CLIENT = { name: "mcp-wire-probe", version: "0.1.0" };

/** Quotes for a POSIX shell. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlRepro(x: ExchangeRecord, secrets: Record<string, string> | undefined): string {
  const shown = redactorOf(secrets);
  // redacted before quoting: a quoted secret would no longer look like one
  const parts = ["curl", "-sS", "-i", "-X", x.httpMethod, shellQuote(shown.text(x.url))];
  for (const [name, value] of Object.entries(x.requestHeaders ?? {})) parts.push("-H", shellQuote(`${name}: ${shown.headerValue(name, value)}`));
  if (x.httpMethod === "POST" && x.requestBody !== undefined) parts.push("--data-raw", shellQuote(shown.text(x.requestBody)));
  return parts.join(" ");
}

/** Pipes the opening request a dual-era client sends first into the server's command. */
export function stdioRepro(command: string, args: readonly string[], revision?: Revision, clientInfo: { name: string; version: string } = REPRO_CLIENT): string {
  const legacy = revision !== undefined && revision !== LATEST_REVISION;
  // the request the probe sent, identity included, as the HTTP repro line replays it
  const message = legacy
    ? { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: revision ?? LATEST_LEGACY_REVISION, capabilities: {}, clientInfo } }
    : { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { [META_PROTOCOL_VERSION]: LATEST_REVISION, [META_CLIENT_CAPABILITIES]: {}, [META_CLIENT_INFO]: clientInfo } } };
  return `printf '%s\\n' ${shellQuote(JSON.stringify(message))} | ${[command, ...args].map((w) => shellQuote(redact(w))).join(" ")}`;
}
