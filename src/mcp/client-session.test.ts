/**
 * An expired Streamable HTTP session, against server-everything (the official SDK v1 transport)
 * as a process on loopback: the server answers 404 to the session it no longer knows, and the
 * client opens a new session with `initialize` sent without a session id (a MUST), then sends
 * the request again and gets its answer.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import type { ExchangeRecord } from "../transport/http/client.js";
import { connectHttp } from "./connect-http.js";
import type { McpClient } from "./client.js";
import { startListening, type Proc } from "../testkit/interop-harness.js";
import { within } from "../testkit/mcp-interop.js";

const EVERYTHING_HTTP = fileURLToPath(new URL("../../../test/fixtures/everything-http.mjs", import.meta.url));

let proc: Proc | undefined;
let client: McpClient | undefined;
const exchanges: ExchangeRecord[] = [];

before(async () => {
  const started = await startListening(process.execPath, [EVERYTHING_HTTP, "streamable"]);
  proc = started.proc;
  const connection = await within(
    connectHttp(started.url, {
      fresh: true,
      transport: "streamable-http",
      timeout: 10_000,
      onExchange: (x) => exchanges.push(x),
    }),
    "connectHttp",
  );
  client = connection.client;
});

after(async () => {
  await client?.close().catch(() => undefined);
  await proc?.stop(1000);
});

test("a 404 on an expired session: a new initialize without a session id, then the request again", async () => {
  assert.ok(client);
  assert.equal(client.era, "legacy");
  await within(client.callTool("echo", { message: "before" }), "echo before");
  // the server forgets the session, as one does after a restart or an idle timeout
  const transport = client["http"] as unknown as { sessionId: string | undefined };
  const old = transport.sessionId;
  assert.ok(old);
  transport.sessionId = "expired-session";
  exchanges.length = 0;
  const result = await within(client.callTool("echo", { message: "after" }), "echo after");
  assert.match(JSON.stringify(result.content), /after/);
  const posts = exchanges.filter((x) => x.httpMethod === "POST");
  assert.deepEqual(
    posts.map((x) => `${x.method} ${x.status}`),
    ["tools/call 404", "initialize 200", "notifications/initialized 202", "tools/call 200"],
  );
  const initialize = posts[1]!;
  assert.equal(
    Object.keys(initialize.requestHeaders ?? {}).find((h) => h.toLowerCase() === "mcp-session-id"),
    undefined,
    "initialize carries no session id",
  );
  assert.ok(transport.sessionId && transport.sessionId !== "expired-session" && transport.sessionId !== old);
  assert.ok(client.steps.some((s) => s.step === "reconnect" && /session expired/.test(s.detail ?? "")));
});
