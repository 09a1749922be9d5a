/**
 * The stdio servers of the demo fleet: mcp-wire's own `serve --stdio`, a command that does not
 * exist, and stdio-server.js in one mode per misbehaviour (a script of its own, so a verdict's
 * target and repro line stay short enough to read and paste).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fails, ok, type Expectation } from "./expect.js";

export interface StdioBehaviour {
  name: string;
  description: string;
  command: string;
  args: string[];
  expect: Expectation;
}

const SCRIPT = fileURLToPath(new URL("./stdio-server.js", import.meta.url));

/** A small stdio server (stdio-server.ts) in one of its modes. */
function script(mode: string): string[] {
  return [SCRIPT, mode];
}

const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const stdio = { transport: "stdio" } as const;

export function stdioBehaviours(): StdioBehaviour[] {
  const node = process.execPath;
  return [
    {
      name: "stdio-modern",
      description: "mcp-wire serve --stdio: the reference server, both eras",
      command: node,
      args: [MAIN, "serve", "--stdio"],
      expect: ok("modern", "2026-07-28", 3, stdio),
    },
    {
      name: "stdio-legacy",
      description: "a legacy server (2025-06-18) that answers server/discover with -32601",
      command: node,
      args: script("legacy"),
      expect: ok("legacy", "2025-06-18", 1, stdio),
    },
    {
      name: "stdio-banner",
      description: "a legacy server that prints a banner line on stdout before any JSON",
      command: node,
      args: script("banner"),
      expect: ok("legacy", "2025-06-18", 1, { ...stdio, defects: ["parse_error"] }),
    },
    {
      name: "stdio-exit-on-request",
      description: "like rmcp servers: a first message other than initialize ends the process (status 1)",
      command: node,
      args: script("exit-on-request"),
      expect: ok("legacy", "2025-06-18", 1, stdio),
    },
    {
      name: "stdio-version-retry",
      description:
        "speaks only 2025-03-26, and answers initialize offering anything newer with -32602 naming the version, instead of offering its own",
      command: node,
      args: script("old-version"),
      expect: ok("legacy", "2025-03-26", 1, { ...stdio, defects: ["version_not_negotiated"] }),
    },
    {
      name: "stdio-invalid-key",
      description: 'refuses every request with -32001 "Unauthorized: invalid API key"',
      command: node,
      args: script("invalid-key"),
      expect: fails("auth_required", "rpc_error_instead_of_401", {
        ...stdio,
        rpcError: { code: -32001, message: "Unauthorized: invalid API key", range: "legacy" },
      }),
    },
    {
      name: "stdio-crash",
      description: "exits at start (status 1) with a message on stderr",
      command: node,
      args: script("crash"),
      expect: fails("unreachable", "exited", stdio),
    },
    {
      name: "stdio-hang",
      description: "reads its input and never writes a byte",
      command: node,
      args: script("hang"),
      expect: fails("timeout", "initialize", stdio),
    },
    {
      name: "stdio-not-json",
      description: "answers every line with a line of plain text",
      command: node,
      args: script("not-json"),
      // nothing it writes is an answer: only the deadline ends the wait
      expect: fails("not_json", "text", { ...stdio, untilDeadline: true }),
    },
    {
      name: "stdio-bare-array",
      description: 'answers every request with a bare array: [{"name":…}]',
      command: node,
      args: script("bare-array"),
      expect: fails("not_jsonrpc", "bare_array", { ...stdio, untilDeadline: true }),
    },
    {
      name: "stdio-missing",
      description: "a command that does not exist",
      command: join(tmpdir(), "mcp-wire-fleet-missing", "mcp-server"),
      args: [],
      expect: fails("unreachable", "spawn", stdio),
    },
  ];
}
