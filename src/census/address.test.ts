/**
 * The private-address rule: which addresses no public server has, what a registry URL points
 * at, and a lookup that vets the very answer a connection uses, so a name that answers a public
 * address when checked and a loopback one when connected to (DNS rebinding) reaches nothing.
 * Every name here is answered by a table in the test; no resolver is asked, and every
 * connection that could be made goes to 127.0.0.1.
 */
import assert from "node:assert/strict";
import { createServer, get, type Server } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { after, before, describe, test } from "node:test";
import { isNonPublic, resolverOf, vettedLookup, vetUrl, type Resolver } from "./address.js";
import { rebinding } from "../testkit/census-fleet.js";

/** Answers from a table; a name it does not know fails as an unknown name would. */
function table(names: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const found = names[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found;
  };
  return Object.assign(resolve, { asked });
}

describe("address: which addresses are not public", () => {
  test("loopback, private, link-local, metadata, unique- and site-local, and embedded forms of them are not public", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.100.100.200",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fd00:ec2::254",
      "fe80::1",
      "fec0::1",
      "feff::1",
      "::ffff:127.0.0.1",
      "::ffff:a9fe:a9fe",
      "::ffff:0:127.0.0.1",
      "::ffff:0:a9fe:a9fe",
      "::ffff:0:10.1.2.3",
      "64:ff9b::a00:1",
      "224.0.0.1",
    ]) {
      assert.equal(isNonPublic(a), true, a);
    }
    for (const a of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "::ffff:0:8.8.8.8",
      "fe00::1",
      "2a00:1450::1",
    ]) {
      assert.equal(isNonPublic(a), false, a);
    }
  });

  test("IP literals are judged without resolving; names by every address; a name that does not resolve is not taken as public", async () => {
    const resolve = table({
      "internal.example": ["10.0.0.1"],
      "split.example": ["93.184.216.34", "fd00::1"],
      "public.example": ["93.184.216.34"],
      "empty.example": [],
    });
    assert.deepEqual(await vetUrl("http://127.0.0.1:8080/mcp", resolve), { kind: "private", address: "127.0.0.1" });
    assert.deepEqual(await vetUrl("http://169.254.169.254/latest/meta-data", resolve), {
      kind: "private",
      address: "169.254.169.254",
    });
    assert.deepEqual(await vetUrl("http://[::1]:9/mcp", resolve), { kind: "private", address: "::1" });
    assert.deepEqual(await vetUrl("http://[::ffff:0:7f00:1]/mcp", resolve), {
      kind: "private",
      address: "::ffff:0:7f00:1",
    });
    assert.deepEqual(await vetUrl("http://[fec0::1]/mcp", resolve), { kind: "private", address: "fec0::1" });
    assert.deepEqual(resolve.asked, []);
    assert.deepEqual(await vetUrl("https://internal.example/mcp", resolve), { kind: "private", address: "10.0.0.1" });
    assert.deepEqual(await vetUrl("https://split.example/mcp", resolve), { kind: "private", address: "fd00::1" });
    assert.deepEqual(await vetUrl("https://public.example/mcp", resolve), { kind: "public" });
    assert.deepEqual(await vetUrl("https://nowhere.example/mcp", resolve), { kind: "unresolved", reason: "ENOTFOUND" });
    assert.deepEqual(await vetUrl("https://empty.example/mcp", resolve), { kind: "unresolved", reason: "ENOTFOUND" });
  });
});

describe("address: the lookup a connection uses is vetted", () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  before(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end("secret of the internal network");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchVia = (lookup: LookupFunction, host: string) =>
    new Promise<{ status?: number; code?: string }>((resolve) => {
      get({ host, port, path: "/", lookup, agent: false }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      }).on("error", (e: NodeJS.ErrnoException) => resolve({ code: e.code ?? "" }));
    });

  test("a name that answers a public address when checked and 127.0.0.1 when connected to reaches nothing", async () => {
    const dns = rebinding([["93.184.216.34"], ["127.0.0.1"]]);
    const refused: string[] = [];
    const lookup = vettedLookup(dns, (host, address) => refused.push(`${host} ${address}`));
    // the check sees the public answer…
    assert.deepEqual(await vetUrl(`http://rebind.example:${port}/`, resolverOf(dns)), { kind: "public" });
    // … and the connection, resolving again, is refused the loopback one
    assert.deepEqual(await fetchVia(lookup, "rebind.example"), { code: "ERR_PRIVATE_ADDRESS" });
    assert.equal(hits, 0, "the loopback service was never reached");
    assert.deepEqual(refused, ["rebind.example 127.0.0.1"]);
    assert.equal(dns.calls, 2);
  });

  test("one private address among public ones is refused; an answer of public addresses only is passed on as asked", async () => {
    const mixed = vettedLookup(rebinding([["93.184.216.34", "::ffff:0:7f00:1"]]));
    assert.deepEqual(await fetchVia(mixed, "mixed.example"), { code: "ERR_PRIVATE_ADDRESS" });
    assert.equal(hits, 0);
    // what a public answer is given back as, in both of node's forms (never connected to here)
    const pub = vettedLookup(rebinding([["93.184.216.34", "2606:4700::1111"]]));
    const one = await new Promise<unknown[]>((resolve) =>
      pub("public.example", {}, (...args: unknown[]) => resolve(args)),
    );
    assert.deepEqual(one, [null, "93.184.216.34", 4]);
    const all = await new Promise<unknown[]>((resolve) =>
      pub("public.example", { all: true }, (...args: unknown[]) => resolve(args)),
    );
    assert.deepEqual(all, [
      null,
      [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700::1111", family: 6 },
      ],
    ]);
    // a failure of the lookup stays that failure
    const failing = vettedLookup(rebinding(["fail"]));
    assert.deepEqual(await fetchVia(failing, "nowhere.example"), { code: "ENOTFOUND" });
    assert.equal(hits, 0);
  });

  test("the same lookup, unvetted, does reach the loopback service: what the vetting stops is real", async () => {
    const dns = rebinding([["93.184.216.34"], ["127.0.0.1"]]);
    await resolverOf(dns)("rebind.example");
    assert.deepEqual(await fetchVia(dns, "rebind.example"), { status: 200 });
    assert.equal(hits, 1);
    hits = 0;
  });
});
