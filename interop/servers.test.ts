/**
 * `npm run interop`: every independent server peer (see src/interop/peers.test.ts) probed, tapped
 * with the official SDK client and linted, and called by mcp-wire's own client. The quick peers
 * are in `npm test` (src/interop/quick.test.ts), which `npm run interop` runs as well; only their
 * several-clients cell is here.
 */
import { describe } from "node:test";
import { concurrentCell, serverCells, startedOnce } from "../src/testkit/interop-cells.js";
import { PEERS, QUICK } from "../src/testkit/interop-peers.js";

for (const row of PEERS) {
  if (!QUICK.includes(row.name)) serverCells(row);
  else describe(`${row.name} (beyond npm test)`, () => concurrentCell(row, startedOnce(row)));
}
