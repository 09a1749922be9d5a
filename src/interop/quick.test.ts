/**
 * The part of the interop matrix that `npm test` runs: probe, tap with the official SDK client,
 * lint of the tap's log and mcp-wire's own client, against two peers we did not write (tmcp over
 * stdio, mcp-lite over HTTP). The whole matrix is `npm run interop`.
 */
import { serverCells } from "../testkit/interop-cells.js";
import { QUICK, peer } from "../testkit/interop-peers.js";

// several clients through one tap is the broad matrix's (interop/servers.test.ts)
for (const name of QUICK) serverCells(peer(name), { concurrent: false });
