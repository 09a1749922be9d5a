/**
 * `check --surface FILE` against a real server (the official SDK v2's, its tools read from a file
 * so a test can release a new version), as the CLI test and the interop sequence both drive it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mcpWire } from "./cli-child.js";
import { fixture } from "./interop-harness.js";

export interface Run {
  status: number | string;
  stdout: string;
  stderr: string;
}

/** `mcp-wire …args`: its exit status and output. */
export async function run(args: string[]): Promise<Run> {
  const child = mcpWire(args);
  const status = await child.exit(60_000);
  return { status, stdout: child.stdout(), stderr: child.stderr() };
}

/** The first release: one read-only tool with a required parameter. */
export const V1 = {
  tools: [
    {
      name: "search",
      description: "Searches notes.",
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } as Record<
        string,
        unknown
      >,
      annotations: { readOnlyHint: true } as Record<string, unknown>,
    },
  ],
};

/** A scratch folder with the server's definitions file, the surface file, and `check` over both. */
export function surfaceBench(): {
  dir: string;
  definitions: string;
  surface: string;
  check: (...extra: string[]) => Promise<Run>;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-surface-"));
  const definitions = join(dir, "tools.json");
  const surface = join(dir, "surface.json");
  const check = (...extra: string[]) =>
    run([
      "check",
      "--json",
      "-r",
      "2026-07-28",
      "--surface",
      surface,
      ...extra,
      "--stdio",
      "--",
      process.execPath,
      fixture("surface-server.mjs"),
      definitions,
    ]);
  return { dir, definitions, surface, check, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
