/**
 * A client that sends garbage, for the gauntlet's tests: a body that is no JSON, a request with
 * a null id and array params, then exits. The URL is its last argument.
 */
const url = process.argv[process.argv.length - 1]!;
const post = (body: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  }).then(
    (r) => r.text(),
    () => "",
  );
await post("{this is not json");
await post(JSON.stringify({ jsonrpc: "2.0", id: null, method: "initialize", params: [1, 2] }));
