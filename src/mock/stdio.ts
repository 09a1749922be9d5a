/**
 * A recording played over a byte stream (stdio): one message a line each way, one session for
 * the whole stream. What is not JSON gets JSON-RPC's parse error, as a server would answer it.
 */
import type { Readable, Writable } from "node:stream";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import { LineSplitter } from "../codec/lines.js";
import type { MockPlayer } from "./player.js";

/** Plays `player`'s recording to the client on `input`/`output`; resolves once the input ended and every answer is written. */
export async function playOverStream(player: MockPlayer, input: Readable, output: Writable): Promise<void> {
  const session = player.session();
  // requests are played one after another, in the order they came, as a stdio server answers
  // them; answers to the mock's own requests are taken at once, since a play waits on them
  let chain: Promise<void> = Promise.resolve();
  const out = (text: string): void | Promise<void> => {
    if (output.destroyed || output.writableEnded) return;
    if (!output.write(text + "\n")) return new Promise<void>((resolve) => output.once("drain", resolve));
  };
  const splitter = new LineSplitter(DEFAULT_MAX_BYTES, (line) => {
    if (line.overflow) return void out(parseError(`a line of ${line.size} bytes, over the mock's limit`));
    const text = line.bytes.toString("utf8");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return void out(parseError("not JSON"));
    }
    for (const m of Array.isArray(value) ? value : [value]) {
      if (typeof m === "object" && m !== null && typeof (m as { method?: unknown }).method !== "string")
        session.reply((m as { id?: unknown }).id);
      else chain = chain.then(() => session.receive(m, out)).catch(() => undefined);
    }
  });
  for await (const chunk of input) splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  splitter.end();
  session.close();
  await chain;
}

function parseError(why: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${why}` } });
}
