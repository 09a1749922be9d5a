/**
 * \`npm run interop\`: every real peer's sound traffic stays silent under schema validation
 * (src/testkit/schema-peers.ts), two of which \`npm test\` runs. With
 * MCP_WIRE_RECORD_SCHEMA_CORPUS=FILE it writes the corpus test/fixtures/schema-corpus.ndjson is.
 */
import { schemaPeerSuite } from "../src/testkit/schema-peers.js";

schemaPeerSuite();
