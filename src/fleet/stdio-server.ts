/**
 * A small stdio server of the demo fleet, misbehaving as `process.argv[2]` says. Plain Node, no
 * imports from mcp-wire: it stands for servers written by other people.
 *
 *   legacy           a 2025-06-18 server; anything before initialize but initialize gets -32601
 *   banner           the same, after a banner line on stdout
 *   exit-on-request  like rmcp servers: a first message other than initialize ends the process
 *   invalid-key      every request refused with -32001 "Unauthorized: invalid API key"
 *   crash            a message on stderr, exit status 1, before reading anything
 *   hang             reads its input, never writes a byte, and stays when its input ends
 *   not-json         answers every line with a line of plain text
 *   bare-array       answers every request with a bare JSON array
 *   old-version      speaks only 2025-03-26, and answers initialize offering anything else with
 *                    -32602 naming that version instead of offering its own
 */

export {};

const VERSION = "2025-06-18";
const mode = process.argv[2] ?? "legacy";

interface Incoming {
  id?: unknown;
  method?: unknown;
  params?: { protocolVersion?: unknown };
}

function send(message: unknown): void {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let dying = false;

/** Ends the process once `text` has reached stderr: process.exit drops writes still queued. */
function die(text: string): void {
  dying = true;
  process.stderr.write(text + "\n", () => process.exit(1));
}

let initialized = false;

function serve(m: Incoming): void {
  if (mode === "invalid-key")
    return send({ jsonrpc: "2.0", id: m.id, error: { code: -32001, message: "Unauthorized: invalid API key" } });
  if (mode === "bare-array")
    return void process.stdout.write(JSON.stringify([{ name: "search", description: "Searches." }]) + "\n");
  if (!initialized && m.method !== "initialize" && mode === "exit-on-request") {
    return die(`Error: expected initialize request, but received: ${JSON.stringify(m.method)}`);
  }
  switch (m.method) {
    case "initialize":
      if (mode === "old-version" && m.params?.protocolVersion !== "2025-03-26") {
        return send({
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32602, message: `Unsupported protocol version: ${String(m.params?.protocolVersion)}` },
        });
      }
      initialized = true;
      return send({
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: mode === "old-version" ? "2025-03-26" : VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: `fleet-stdio-${mode}`, version: "1.0.0" },
        },
      });
    case "tools/list":
      return send({
        jsonrpc: "2.0",
        id: m.id,
        result: {
          tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
        },
      });
    case "ping":
      return send({ jsonrpc: "2.0", id: m.id, result: {} });
    default:
      return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
}

function onLine(line: string): void {
  if (dying || line.trim() === "") return;
  if (mode === "not-json") return void process.stdout.write("Unknown command. Type 'help' for a list of commands.\n");
  let m: Incoming;
  try {
    m = JSON.parse(line) as Incoming;
  } catch {
    return;
  }
  if (typeof m === "object" && m !== null && m.id !== undefined) serve(m);
}

if (mode === "crash") {
  die("Error: WEATHER_API_KEY environment variable is required");
} else if (mode === "hang") {
  process.stdin.resume();
  // stays even when its input ends: only a signal stops it
  setInterval(() => undefined, 1 << 30);
} else {
  if (mode === "banner") process.stdout.write("Weather MCP Server v1.2 running on stdio\n");
  let buffer = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      onLine(line);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
