/**
 * What mcp-proxy imports from pipenet, for `mcp-proxy --tunnel` alone: a public tunnel is
 * never opened by mcp-wire's tests (they touch loopback only), so asking for one says why not.
 */
export async function pipenet() {
  throw new Error(
    "mcp-proxy --tunnel is not available in mcp-wire's development install: pipenet (Node 22 or newer) is replaced",
  );
}
