/**
 * `npm run interop`: the evidence behind the rule catalogue's `breaks` lists for every rule but
 * the one the default suite runs (src/check/breaks.test.ts).
 */
import { breaksSuite } from "../src/testkit/breaks.js";

breaksSuite((e) => e.rule !== "tool_input_schema_not_object");
