/** WWW-Authenticate read as RFC 9110 writes it: several challenges, quoted strings, escapes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { findChallenge, parseChallenges } from "./challenge.js";

test("one Bearer challenge with quoted and bare parameters", () => {
  const [c] = parseChallenges(
    'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write", error=invalid_token',
  );
  assert.equal(c?.scheme, "Bearer");
  assert.deepEqual(c?.params, {
    resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource",
    scope: "files:read files:write",
    error: "invalid_token",
  });
});

test("several challenges, commas and escapes inside quoted strings, names in any case", () => {
  const all = parseChallenges(
    'Basic realm="a, \\"quoted\\" realm", charset=UTF-8, Negotiate abc123==,  bearer  Resource_Metadata = "https://x.example/prm" , scope="a b"',
  );
  assert.deepEqual(
    all.map((c) => c.scheme),
    ["Basic", "Negotiate", "bearer"],
  );
  assert.equal(all[0]!.params.realm, 'a, "quoted" realm');
  assert.equal(all[0]!.params.charset, "UTF-8");
  assert.equal(all[1]!.token68, "abc123==");
  const b = findChallenge(all, "Bearer");
  assert.equal(b?.params.resource_metadata, "https://x.example/prm");
  assert.equal(b?.params.scope, "a b");
});

test("a bare scheme, an empty header and garbage never throw", () => {
  assert.deepEqual(parseChallenges("Bearer"), [{ scheme: "Bearer", params: {} }]);
  assert.deepEqual(parseChallenges(""), []);
  assert.deepEqual(parseChallenges(null), []);
  for (const junk of ['Bearer realm="unterminated', "=,=,", '"', "Bearer a=b c", "Bearer ,,, scope=x"])
    assert.doesNotThrow(() => parseChallenges(junk));
  assert.equal(findChallenge(parseChallenges("Bearer ,,, scope=x"), "bearer")?.params.scope, "x");
});
