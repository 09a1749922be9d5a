/**
 * `check` against mcp-wire's own server and one real peer, the official SDK v2 server over stdio
 * (src/testkit/check-peers.ts); every other real peer in `npm run interop` (interop/check-peers.test.ts).
 */
import { ownServerSuite, realPeersSuite } from "../testkit/check-peers.js";

ownServerSuite();
realPeersSuite(["SDK v2 server stdio (dual)"]);
