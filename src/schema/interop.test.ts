/**
 * Real peers' sound traffic stays silent under schema validation (src/testkit/schema-peers.ts):
 * in every \`npm test\`, server-everything (SDK v1, over stdio, with the violations it is known
 * for) and the SDK v2 server over Streamable HTTP at every revision; every peer in
 * \`npm run interop\` (interop/schema-peers.test.ts), which also writes the schema corpus.
 */
import { schemaPeerSuite } from "../testkit/schema-peers.js";

schemaPeerSuite(["server-everything stdio", "SDK v2 server http (dual)"]);
