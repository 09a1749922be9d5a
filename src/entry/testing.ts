/**
 * mcp-wire/testing: servers for testing MCP clients against. The fleet: local endpoints on
 * 127.0.0.1 and stdio commands that misbehave as real servers do (web pages, bare arrays,
 * refusals in the wrong range, hangs, drips, broken sign-in chains), each with the verdict
 * `mcp-wire probe` gives it; and the fixtures the official conformance suite calls. See
 * docs/library.md.
 */
export { startFleet } from "../fleet/fleet.js";
export type { Fleet, FleetOptions, FleetEndpoint, FleetCommand, Expectation } from "../fleet/fleet.js";
export { createConformanceServer, defineConformanceFixtures } from "../fleet/conformance-server.js";
export { mockServer } from "../mock/library.js";
export { RecordingError, RecordingWriteError } from "../recording/errors.js";
export type { RecordingProblem, RecordingWriteProblem } from "../recording/errors.js";
export type { MockServer, MockServerOptions, UnmatchedRequest } from "../mock/library.js";
export { recordTransport } from "../recording/record-transport.js";
export type { RecordTransportOptions } from "../recording/record-transport.js";
