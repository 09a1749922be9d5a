/** Command lines that replay a failing request, with every credential shown as `<redacted>`. */
import type { Revision } from "../rules/revisions.js";
import { LATEST_LEGACY_REVISION, LATEST_REVISION, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { headerValueShown, redact } from "../secrets/redact.js";
import type { ExchangeRecord } from "../transport/http/client.js";

/** Quotes for a POSIX shell. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlRepro(x: ExchangeRecord, secrets: Record<string, string> | undefined): string {
  // redacted before quoting: a quoted secret would no longer look like one
  const parts = ["curl", "-sS", "-i", "-X", x.httpMethod, shellQuote(redact(x.url, secrets))];
  for (const [name, value] of Object.entries(x.requestHeaders ?? {})) parts.push("-H", shellQuote(`${name}: ${headerValueShown(name, value, secrets)}`));
  if (x.httpMethod === "POST" && x.requestBody !== undefined) parts.push("--data-raw", shellQuote(redact(x.requestBody, secrets)));
  return parts.join(" ");
}

/** Pipes the opening request a dual-era client sends first into the server's command. */
export function stdioRepro(command: string, args: readonly string[], revision?: Revision): string {
  const legacy = revision !== undefined && revision !== LATEST_REVISION;
  const message = legacy
    ? { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: revision ?? LATEST_LEGACY_REVISION, capabilities: {}, clientInfo: { name: "repro", version: "0" } } }
    : { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { [META_PROTOCOL_VERSION]: LATEST_REVISION, [META_CLIENT_CAPABILITIES]: {} } } };
  return `printf '%s\\n' ${shellQuote(JSON.stringify(message))} | ${[command, ...args].map((w) => shellQuote(redact(w))).join(" ")}`;
}
