/**
 * mcp-wire/testing: servers for testing MCP clients against. The fleet: local endpoints on
 * 127.0.0.1 and stdio commands that misbehave as real servers do (web pages, bare arrays,
 * refusals in the wrong range, hangs, drips, broken sign-in chains), each with the verdict
 * `mcp-wire probe` gives it; the fixtures the official conformance suite calls; and a reset of
 * what connectHttp remembers of each origin, so one test's server does not decide the next's
 * era. See docs/library.md.
 */
export { startFleet } from "../fleet/fleet.js";
export type { Fleet, FleetOptions, FleetEndpoint, FleetCommand, Expectation } from "../fleet/fleet.js";
export { createConformanceServer, defineConformanceFixtures } from "../fleet/conformance-server.js";
export { forgetHttpEras } from "../mcp/connect-http.js";
