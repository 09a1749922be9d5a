/** `mcp-wire serve --stdio`: the reference server on standard input and output. */
import { createReferenceServer } from "../mcp/reference-server.js";
import { StreamTransport } from "../transport/stream.js";

export async function runServeStdio(): Promise<number> {
  const server = createReferenceServer({
    onDefect: ({ defect }) => process.stderr.write(`mcp-wire serve: ${defect.severity} ${defect.code}: ${defect.message}\n`),
  });
  const peer = server.connect(new StreamTransport(process.stdin, process.stdout));
  await peer.ended;
  return 0;
}
