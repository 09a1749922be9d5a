/**
 * `mcp-wire serve --http` as a real child process under a burst of hostile bodies: 32 bodies of
 * 4 MiB of nested brackets at once. The server bounds what it holds and parses at a time, so a
 * normal client is answered meanwhile and the process's peak memory stays bounded.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { test } from "node:test";
import { CLI, within } from "../testkit/mcp-interop.js";

const BURST = 32;
const NESTED = Buffer.concat([Buffer.alloc(2 * 1024 * 1024, "["), Buffer.alloc(2 * 1024 * 1024, "]")]);
const PEAK_RSS_MB = 350;

function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The child's own peak resident memory (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return hwm ? Number(hwm[1]) / 1024 : 0;
}

test("32 bodies of 4 MiB nested brackets at once: each refused, a normal initialize answered meanwhile, peak RSS bounded", async () => {
  const child = spawn(process.execPath, [CLI, "serve", "--http", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const url = await within(
      new Promise<string>((resolve) => {
        const look = () => {
          const found = /listening on (http:\/\/\S+)/.exec(err);
          if (found) resolve(found[1]!);
        };
        child.stderr!.on("data", look);
      }),
      "serve --http printing its URL",
    );
    const burst = Promise.all(
      Array.from({ length: BURST }, () => post(url, NESTED).catch((e: Error) => ({ status: 0, text: e.message }))),
    );
    const normal = await within(
      post(
        url,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      ),
      "a normal initialize during the burst",
    );
    assert.equal(normal.status, 200, normal.text);
    const answers = await within(burst, "the burst's answers", 60_000);
    for (const a of answers)
      assert.ok(
        a.status === 400 || a.status === 503,
        `a nested body gets 400 (too deep) or 503 (come back later), not ${a.status} ${a.text.slice(0, 200)}`,
      );
    const peak = peakRssMb(child.pid!);
    assert.ok(peak < PEAK_RSS_MB, `peak RSS ${peak.toFixed(0)} MB`);
  } finally {
    child.kill("SIGTERM");
    await within(exited, "serve exiting");
  }
});
