/**
 * Run by the round-trip benchmark in a child `node --expose-gc` process, so the heap it measures
 * holds nothing but this: how much heap N requests awaiting an answer take in mcp-wire's Peer,
 * on a memory pair whose other side never answers. Prints one JSON object.
 *
 *   node --expose-gc dist/bench/pending-memory.js [N]
 *
 * The growth counts everything a caller pays for a pending request: its params objects, the
 * encoded line handed to the transport (dropped by the silent side), the Peer's bookkeeping
 * (pending entry, deadline timer) and the promise the caller holds. After the measurement,
 * close() must reject every one of them with ClosedError and leave nothing in flight.
 */
import { ClosedError } from "../src/index.js";
import { Peer, createMemoryPair } from "../src/entry/peer.js";

const gc = globalThis.gc;
if (typeof gc !== "function") {
  console.error("pending-memory: run with node --expose-gc");
  process.exit(2);
}

const n = Number(process.argv[2] ?? 100_000);
const [mine, other] = createMemoryPair();
other.start({ message() {}, defect() {}, closed() {} });
const peer = new Peer(mine, { revision: "2025-11-25", role: "client", maxInFlight: 2 * n, timeout: 3_600_000 });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

await turn();
gc();
gc();
const before = process.memoryUsage().heapUsed;
const requests: Promise<unknown>[] = [];
for (let i = 0; i < n; i++) requests.push(peer.request("tools/call", { name: "echo", arguments: { text: "pending" } }));
// every send is delivered (and dropped) on a microtask: let them all land before measuring
await turn();
gc();
gc();
const after = process.memoryUsage().heapUsed;
const inFlight = peer.inFlight;

const outcomes = Promise.allSettled(requests);
await peer.close();
const settled = await outcomes;
console.log(
  JSON.stringify({
    n,
    inFlight,
    heapGrowth: after - before,
    closedErrors: settled.filter((o) => o.status === "rejected" && o.reason instanceof ClosedError).length,
    inFlightAfterClose: peer.inFlight,
  }),
);
