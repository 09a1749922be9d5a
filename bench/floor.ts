/**
 * The least a Node client can do for one `tools/call` round trip: the request written as JSON,
 * the answer's line (stdio) or body (Streamable HTTP, node:http with a kept-alive socket) read
 * and parsed, its id matched. Nothing judged, no deadline, no bookkeeping, no event for a caller.
 * Measured beside the clients against the same server, it is their ceiling: the server's own time
 * and the pipe's or socket's are in every round trip, whoever the client is.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { LATEST_LEGACY_REVISION } from "../src/rules/revisions.js";

type Json = Record<string, unknown>;

const INITIALIZE = {
  protocolVersion: LATEST_LEGACY_REVISION,
  capabilities: {},
  clientInfo: { name: "bench-floor", version: "1.0.0" },
};

/** The result an answer carries; its error, thrown. */
function resultOf(message: Json): Json {
  if (message.error !== undefined) throw new Error(`the server answered ${JSON.stringify(message.error)}`);
  return message.result as Json;
}

/** Over a child's stdio: one line out, lines in until the one with the awaited id. */
export class FloorStdio {
  private readonly child: ChildProcess;
  private buffered = "";
  private nextId = 0;
  private waiting: { id: number; resolve: (m: Json) => void; reject: (e: Error) => void } | undefined;

  private constructor(command: string, args: readonly string[]) {
    this.child = spawn(command, [...args], { stdio: ["pipe", "pipe", "ignore"] });
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.read(chunk));
    // a server that ends fails the call in flight instead of leaving it waiting
    this.child.once("exit", () => this.waiting?.reject(new Error("the server exited")));
    this.child.stdin!.on("error", () => undefined);
  }

  static async open(command: string, args: readonly string[]): Promise<FloorStdio> {
    const floor = new FloorStdio(command, args);
    await floor.send("initialize", INITIALIZE);
    floor.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    return floor;
  }

  callTool(name: string, args: Json): Promise<Json> {
    return this.send("tools/call", { name, arguments: args }).then(resultOf);
  }

  close(): void {
    this.child.stdin!.end();
    this.child.kill();
  }

  private send(method: string, params: Json): Promise<Json> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting = { id, resolve, reject };
      this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let end: number;
    while ((end = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      const message = JSON.parse(line) as Json;
      const waiting = this.waiting;
      if (waiting !== undefined && message.id === waiting.id) {
        this.waiting = undefined;
        waiting.resolve(message);
      }
    }
  }
}

/** Over Streamable HTTP: one POST per message on one kept-alive socket, the session's id echoed. */
export class FloorHttp {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;
  private session: string | undefined;
  private nextId = 0;

  private constructor(url: string) {
    this.url = new URL(url);
  }

  static async open(url: string): Promise<FloorHttp> {
    const floor = new FloorHttp(url);
    await floor.post({ jsonrpc: "2.0", id: ++floor.nextId, method: "initialize", params: INITIALIZE });
    await floor.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return floor;
  }

  async callTool(name: string, args: Json): Promise<Json> {
    const id = ++this.nextId;
    const message = await this.post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    if (message?.id !== id) throw new Error(`no answer to request ${id}`);
    return resultOf(message);
  }

  close(): void {
    this.agent.destroy();
  }

  private post(message: Json): Promise<Json | undefined> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_LEGACY_REVISION,
    };
    if (this.session !== undefined) headers["mcp-session-id"] = this.session;
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: "POST", agent: this.agent, headers }, (res) => {
        const session = res.headers["mcp-session-id"];
        if (typeof session === "string") this.session = session;
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("error", reject);
        res.on("end", () => {
          if (body.length === 0) return resolve(undefined);
          // an event stream's answer is its last data line; a JSON body is the answer itself
          const sse = String(res.headers["content-type"]).startsWith("text/event-stream");
          const data = sse ? body.split("\n").filter((l) => l.startsWith("data: ")) : [];
          resolve(JSON.parse(sse ? data[data.length - 1]!.slice(6) : body) as Json);
        });
      });
      req.on("error", reject);
      req.end(JSON.stringify(message));
    });
  }
}
