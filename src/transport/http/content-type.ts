/**
 * The Content-Type a Streamable HTTP server must answer a POSTed request with: `application/json`
 * (one response) or `text/event-stream` (a stream), parameters allowed (basic/transports, "Sending
 * Messages to the Server", 2025-03-26 onward). The official SDK clients refuse anything else
 * ("Unexpected content type"), so a server that sends its JSON as `text/plain` fails them.
 */
import { defect, type Defect } from "../../codec/defects.js";

/** The media type alone, lower case: `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/** The defect of a JSON-RPC answer to a request sent with `contentType`, or undefined when it is one of the two. */
export function answerContentTypeDefect(contentType: string): Defect | undefined {
  const type = mediaType(contentType);
  if (type === "application/json" || type === "text/event-stream") return undefined;
  return defect(
    "content_type_invalid",
    "",
    `the JSON-RPC answer came with Content-Type ${contentType ? JSON.stringify(contentType) : "(none)"}: a Streamable HTTP server answers a request with application/json or text/event-stream (basic/transports), and clients such as the official SDKs refuse anything else`,
  );
}
