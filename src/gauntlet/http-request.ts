/**
 * What the gauntlet's HTTP front reads of a request before it routes it: the path and query of
 * its target, and its body — read by the library's own reader (the size cap, the deadline, no
 * timer or listeners when the body came with its headers, as nearly every small one does); and
 * the requests that come before there is a front to route them (run mode starts its client first).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeRequest } from "../transport/http/adapters.js";
import { ByteBudget } from "../transport/http/budget.js";
import { RequestBody } from "../transport/http/request-body.js";

const MAX_BODY = 8 * 1024 * 1024;
const BODY_TIMEOUT_MS = 10_000;

/** A target that is a plain absolute path: nothing `new URL` would rewrite (dots, escapes, `//`). */
const PLAIN_PATH = /^\/(?!\/)[\w\-/]*$/;
/** A query both readers read alike: no `?`, fragment, space or other character a URL reader rewrites. */
const PLAIN_QUERY = /^[\w\-=&.~%]*$/;
const NO_QUERY: URLSearchParams = new URLSearchParams();

export interface RequestTarget {
  readonly path: string;
  /** Read only: one empty instance stands for every target without a query. */
  readonly query: URLSearchParams;
}

/** The path and query of a request's target, as `new URL` reads them; a plain path is taken as it stands. */
export function requestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? "/";
  const mark = target.indexOf("?");
  const path = mark < 0 ? target : target.slice(0, mark);
  if (PLAIN_PATH.test(path)) {
    if (mark < 0) return { path, query: NO_QUERY };
    const query = target.slice(mark + 1);
    if (PLAIN_QUERY.test(query)) return { path, query: new URLSearchParams(query) };
  }
  try {
    const url = new URL(target, "http://gauntlet.invalid");
    return { path: url.pathname, query: url.searchParams };
  } catch {
    // not a target any URL reader takes (`//[`): no path of ours, so it is answered 404
    return { path: "", query: NO_QUERY };
  }
}

/** Why a body was refused: its status and reason phrase. */
export interface BodyRefusal {
  readonly status: 408 | 413 | 503;
  readonly reason: string;
}

/** The bytes of every body being read at once: one client at a time, so only a bound, never a queue. */
export function bodyBudget(): ByteBudget {
  return new ByteBudget(4 * MAX_BODY, MAX_BODY);
}

/** The body as text, or why it was refused (too large, too slow, no room, the client gone). */
export async function readBody(req: IncomingMessage, budget: ByteBudget): Promise<string | BodyRefusal> {
  const request = nodeRequest(req);
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  const known = declared !== undefined && Number.isSafeInteger(declared) && declared >= 0;
  if (known && declared > MAX_BODY) {
    request.stopReading();
    return { status: 413, reason: "Payload Too Large" };
  }
  const reading = new RequestBody(request, budget, MAX_BODY, BODY_TIMEOUT_MS, known ? declared : undefined);
  try {
    const read = await reading.read(BODY_TIMEOUT_MS);
    if (typeof read !== "string") return Buffer.from(read.buffer, read.byteOffset, read.byteLength).toString("utf8");
    if (read !== "gone") request.stopReading();
    if (read === "too_large") return { status: 413, reason: "Payload Too Large" };
    if (read === "busy") return { status: 503, reason: "Service Unavailable" };
    return { status: 408, reason: "Request Timeout" };
  } finally {
    budget.release(reading.held);
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests that came before the server was ready, handed to it in the order they came. */
export class EarlyRequests {
  private handler: Handler | undefined;
  private readonly waiting: [IncomingMessage, ServerResponse][] = [];

  take(req: IncomingMessage, res: ServerResponse): void {
    if (this.handler) this.handler(req, res);
    else this.waiting.push([req, res]);
  }

  ready(handler: Handler): void {
    this.handler = handler;
    for (const [req, res] of this.waiting.splice(0)) handler(req, res);
  }
}
