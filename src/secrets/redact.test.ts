/** The one redaction function: what it hides, in which surroundings, and what it leaves alone. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { redact, redactFresh, redactSecrets, rememberDatabaseUrl } from "./redact.js";

test("a URL's userinfo password, for any scheme, wherever the URL sits", () => {
  assert.equal(redact("https://user:pw@example.com/mcp"), "https://user:<redacted>@example.com/mcp");
  assert.equal(redact("postgres://census:s3cr'et:x@db:5432/w"), "postgres://census:<redacted>@db:5432/w");
  assert.equal(
    redact(`curl -X POST 'http://a:b@h/mcp' -H 'x: y'`),
    `curl -X POST 'http://a:<redacted>@h/mcp' -H 'x: y'`,
  );
  assert.equal(redact(`{"target":"http://:tok@h/"}`), `{"target":"http://:<redacted>@h/"}`);
  assert.equal(redact("fetch failed for http://u:p@h/x: refused"), "fetch failed for http://u:<redacted>@h/x: refused");
});

test("secret-named query parameters, case-insensitive, names containing the words", () => {
  assert.equal(
    redact("https://h/mcp?api_key=abc&x=1&Token=t1;sig=zz"),
    "https://h/mcp?api_key=<redacted>&x=1&Token=<redacted>;sig=<redacted>",
  );
  assert.equal(redact("see https://h/?APIKEY=abc#frag"), "see https://h/?APIKEY=<redacted>#frag");
  assert.equal(
    redact("/mcp?access_token=x&client_secret=y&password=z&auth=q&key=k"),
    "/mcp?access_token=<redacted>&client_secret=<redacted>&password=<redacted>&auth=<redacted>&key=<redacted>",
  );
  assert.equal(redact('<a href="https://h/?x=1&amp;token=abc">'), '<a href="https://h/?x=1&amp;token=<redacted>">');
});

test("header values: whole, each word but the scheme, and after Name: whatever their length", () => {
  const headers = { Authorization: "Bearer abcdefgh", "X-Key": "ab1" };
  assert.equal(redact("got Bearer abcdefgh; token abcdefgh", headers), "got <redacted>; token <redacted>");
  assert.equal(redact("-H 'X-Key: ab1' and ab1 elsewhere", headers), "-H 'X-Key: <redacted>' and ab1 elsewhere");
});

test("sound text is left alone, and redacting twice changes nothing", () => {
  for (const s of [
    "https://h:8080/mcp?x=1&page=2",
    "mail a@b.c",
    "use --header 'Authorization: Bearer …'",
    "ratio 3:4@home",
    "https://user@h/",
  ])
    assert.equal(redact(s), s);
  const once = redact("https://u:p@h/?key=1 https://h/?token=<x>");
  assert.equal(redact(once), once);
});

test("redactSecrets walks objects, arrays and keys", () => {
  const out = redactSecrets({ a: ["http://u:p@h/"], b: { "https://h/?key=k": 5 }, c: null }, {});
  assert.deepEqual(out, { a: ["http://u:<redacted>@h/"], b: { "https://h/?key=<redacted>": 5 }, c: null });
});

test("redactFresh hides the same secrets, and gives back the very value when it holds none", () => {
  const clean = { a: ["http://h/x?y=1", "plain"], b: { "https://h/": 5 }, c: null, d: [{ e: "Bearer" }] };
  assert.equal(redactFresh(clean, { Authorization: "Bearer tok-123456" }), clean);
  const headers = { Authorization: "Bearer tok-123456" };
  for (const dirty of [
    { a: ["http://u:p@h/"], b: 1 },
    { a: [{ deep: ["echoed tok-123456 back"] }] },
    { "https://h/?key=k": 5 },
    { a: "see https://h/?token=t" },
  ]) {
    const out = redactFresh(dirty, headers);
    assert.notEqual(out, dirty);
    assert.deepEqual(out, redactSecrets(dirty, headers));
    assert.doesNotMatch(JSON.stringify(out), /tok-123456|u:p@|key=k|token=t/);
  }
});

test('a database URL is read as pg reads it: a raw password (@, space, <>") hidden whole, in the URL and alone', () => {
  const url = `postgres://census:p@ss w<>"rd-77@db.internal:5432/census?sslmode=disable`;
  // the pattern alone stops at the first "@" and leaves the rest of the password in view
  assert.ok(redact(url).includes('ss w<>"rd-77'));
  assert.equal(rememberDatabaseUrl(url), "postgres://census:<redacted>@db.internal:5432/census?sslmode=disable");
  assert.equal(
    redact(`cannot open ${url}: refused`),
    "cannot open postgres://census:<redacted>@db.internal:5432/census?sslmode=disable: refused",
  );
  assert.equal(redact(`echoed: p@ss w<>"rd-77`), "echoed: <redacted>");
  assert.equal(
    rememberDatabaseUrl("postgresql://u@h/db?password=a b c&application_name=x"),
    "postgresql://u@h/db?password=<redacted>&application_name=x",
  );
  assert.equal(rememberDatabaseUrl("postgres://user@h:5432/db"), "postgres://user@h:5432/db");
  // one pg cannot read: where its password ends cannot be known, so none of it is shown
  assert.equal(rememberDatabaseUrl("postgres://u:pa?ss@h/db"), "postgres://<redacted>");
  // one pg reads with the "password" in its path: hidden all the same
  assert.equal(rememberDatabaseUrl("postgres://u:12/ss@h/db"), "postgres://u:<redacted>@h/db");
});
