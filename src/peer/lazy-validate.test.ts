import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);

// logs every module the child resolves on stderr, from the loader thread
const HOOK = `import { writeSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, "resolved " + resolved.url + "\\n");
  return resolved;
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(HOOK)}`,
)});`;

/**
 * The child imports mcp-wire/peer, then has a client with validation on judge one answer. ajv is
 * CommonJS and may be required rather than imported, which no resolve hook sees: the child also
 * says whether require's cache holds any of it, and which of it.
 */
const SCRIPT = `
const { createRequire } = await import("node:module");
const ajvFiles = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes("/ajv/"));
const required = () => ajvFiles().length > 0;
const { Peer, createMemoryPair } = await import(${JSON.stringify(new URL("../entry/peer.js", import.meta.url).href)});
process.stderr.write("imported\\najv required: " + required() + "\\n");
const [a, b] = createMemoryPair();
const defects = [];
const client = new Peer(a, { revision: "2025-11-25", role: "client", schema: true, onDefect: (r) => defects.push(r.defect.code) });
const server = new Peer(b, { revision: "2025-11-25", role: "server" });
server.handle("tools/list", () => ({ tools: [{ name: "a", inputSchema: {} }] }));
await client.request("tools/list", {});
process.stderr.write("defects " + defects.join(",") + "\\najv required: " + JSON.stringify(ajvFiles().map((k) => k.slice(k.indexOf("/ajv/")))) + "\\n");
await client.close();
await server.close();
`;

test("importing mcp-wire/peer loads no ajv; validation on loads compiled validators and ajv's runtime helpers, never its compiler", async () => {
  const { stderr } = await run(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "--input-type=module", "-e", SCRIPT],
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const lines = stderr.split("\n");
  const imported = lines.indexOf("imported");
  assert.ok(imported > 0, stderr.slice(0, 2000));
  const ajv = (l: string) => l.startsWith("resolved ") && l.includes("/ajv/");
  assert.deepEqual(lines.slice(0, imported).filter(ajv), []);
  assert.equal(lines[imported + 1], "ajv required: false", "not with the import");
  // the revision's validators were compiled when mcp-wire was built (src/schema/compile.ts)
  const after = lines.at(-2) ?? "";
  assert.match(after, /^ajv required: \[/, stderr.slice(-2000));
  const files = JSON.parse(after.slice("ajv required: ".length)) as string[];
  const compiler = [...lines.slice(imported).filter(ajv), ...files].filter((l) => !l.includes("/ajv/dist/runtime/"));
  assert.deepEqual(compiler, [], "only ajv's runtime helpers, which compiled validators call");
  assert.ok(lines.includes("defects schema_invalid"), stderr.slice(-2000));
});
