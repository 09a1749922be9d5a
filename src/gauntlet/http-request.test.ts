/**
 * The HTTP front's reading of a request target: a plain path is taken as it stands, anything
 * else as `new URL` reads it, so routing is the same either way; a target no URL reader takes
 * is no path of the gauntlet's, never a thrown error.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { requestTarget } from "./http-request.js";

function viaUrl(target: string): { path: string; query: [string, string][] } | undefined {
  try {
    const url = new URL(target, "http://gauntlet.invalid");
    return { path: url.pathname, query: [...url.searchParams] };
  } catch {
    return undefined;
  }
}

function agrees(target: string): void {
  const got = requestTarget(target);
  const want = viaUrl(target);
  if (want === undefined) assert.equal(got.path, "", target);
  else assert.deepEqual({ path: got.path, query: [...got.query] }, want, target);
}

test("requestTarget reads targets as new URL does", () => {
  for (const t of [
    "/mcp",
    "/mcp?sessionId=abc",
    "/mcp/messages?sessionId=a%20b&x=1",
    "/lifecycle/mcp",
    "/.well-known/oauth-protected-resource/mcp",
    "//mcp",
    "/a/../mcp",
    "/./mcp",
    "/%6Dcp",
    "/mcp#frag",
    "/mcp\\x",
    "/mcp?",
    "/",
    "//[",
  ])
    agrees(t);
  fc.assert(
    fc.property(
      fc.string({
        unit: fc.constantFrom("/", "a", "m", "c", "p", ".", "%", "2", "?", "=", "&", "#", "\\", "-", "_", " "),
      }),
      (tail) => agrees(`/${tail}`),
    ),
    { numRuns: 2000 },
  );
});

test("requestTarget gives an empty query when there is none", () => {
  assert.equal(requestTarget("/mcp").query.get("sessionId"), null);
  assert.equal(requestTarget(undefined).path, "/");
});
