/**
 * A client that never stops paging, for the gauntlet's tests: it opens a 2025-11-25 session and
 * follows every nextCursor it is given, however often it repeats, as the looping clients of the
 * wild do. The URL is its last argument.
 */
const url = process.argv[process.argv.length - 1]!;
let session: string | undefined;
let id = 0;
async function call(
  method: string,
  params: Record<string, unknown> = {},
  notify = false,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  if (session) headers["mcp-session-id"] = session;
  const body = notify ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", id: ++id, method, params };
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  session ??= res.headers.get("mcp-session-id") ?? undefined;
  const text = await res.text();
  if (notify || text === "") return {};
  const data = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .pop()!;
  return (JSON.parse(data) as { result?: Record<string, unknown> }).result ?? {};
}
await call("initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "flood", version: "1" },
});
await call("notifications/initialized", {}, true);
let cursor: unknown;
do {
  const page = await call("tools/list", cursor === undefined ? {} : { cursor });
  cursor = page.nextCursor;
} while (cursor !== undefined);
