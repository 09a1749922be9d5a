/**
 * `npm run interop`: `check` against every real peer but the one the default suite checks
 * (src/check/check-peers.test.ts): no false error.
 */
import { CHECKED_PEERS, realPeersSuite } from "../src/testkit/check-peers.js";

realPeersSuite(CHECKED_PEERS.filter((name) => name !== "SDK v2 server stdio (dual)"));
