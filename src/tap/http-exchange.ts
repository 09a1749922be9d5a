/**
 * One HTTP exchange through the tap: the request goes to the upstream as it comes, the answer
 * back to the client as it comes (an SSE stream chunk by chunk), and a copy of each is judged
 * in the exchange's conversation, the request's always before its answer's.
 */
import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import type { HttpContext } from "../recording/recording.js";
import { redact } from "../secrets/redact.js";
import { H_PROTOCOL_VERSION, H_SESSION_ID } from "../transport/http/headers.js";
import { analysisStream, BodyCopy } from "./body-copy.js";
import type { Conversation } from "./conversations.js";
import { endToEnd, header, pipeThrough, type Upstream } from "./http-forward.js";
import { isInitialize, type HttpJudge } from "./http-judge.js";
import type { TapReport } from "./report.js";

/** What every exchange of one tap shares. */
export interface TapParts {
  upstream: Upstream;
  judge: HttpJudge;
  report: TapReport;
}

/** How long the answers of a conversation wait for a request body still arriving, before going on without it. */
const BODY_WAIT_MS = 10_000;

export class Exchange {
  private readonly method: string;
  private readonly sessionId: string | undefined;
  private readonly protocolVersion: string | undefined;
  /** The session named, else the HTTP+SSE session this POST is for, else this exchange alone. */
  private readonly conversation: Conversation;
  /** Streamable HTTP, whose header rules apply: not a POST to an HTTP+SSE session's endpoint. */
  private readonly streamable: boolean;
  private readonly up: ClientRequest;
  /** The request is `initialize`, whose answer may name a session; known once the request is judged. */
  private initialize = false;
  /** The request carried no message (a GET, a DELETE, an empty POST); known once it is judged. */
  private bodiless = false;
  private readonly requestJudged: Promise<void>;
  private analysed!: () => void;

  constructor(
    private readonly tap: TapParts,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly path: string,
    private readonly no: number,
  ) {
    this.method = req.method ?? "GET";
    this.sessionId = header(req, H_SESSION_ID);
    this.protocolVersion = header(req, H_PROTOCOL_VERSION);
    const conversations = tap.judge.conversations;
    const session =
      this.sessionId !== undefined ? conversations.session(this.sessionId) : conversations.endpointOf(path);
    this.streamable = session === undefined || this.sessionId !== undefined;
    this.conversation = session ?? conversations.open();
    this.up = tap.upstream.request(req, this.method, path);
    this.requestJudged = this.forwardRequest();
    // the answer analysed to its end (or given up on): only then may the exchange's conversation end
    const answerAnalysed = new Promise<void>((resolve) => (this.analysed = resolve));
    // an exchange of its own ends with its answer: its requests are closed, its ids free again
    // (asked in the conversation's order: the answer to initialize, judged before, may bind it)
    void Promise.all([this.requestJudged, answerAnalysed]).then(() => conversations.endUnbound(this.conversation));
    this.up.on("response", (ures) => this.answered(ures));
    this.up.on("error", (e) => this.failed(e));
    // the client went away (a closed SSE stream, a cancelled request): so does the upstream exchange
    res.on("close", () => {
      if (!res.writableFinished) this.up.destroy();
    });
    req.on("error", () => this.up.destroy());
  }

  /** "POST /mcp", its secrets hidden. */
  private get where(): string {
    return `${this.method} ${redact(this.path)}`;
  }

  private http(status?: number, contentType?: string): HttpContext {
    return {
      method: this.method,
      path: redact(this.path),
      ...(status !== undefined ? { status } : {}),
      exchange: this.no,
      ...(this.protocolVersion !== undefined ? { protocolVersion: this.protocolVersion } : {}),
      ...(contentType ? { contentType } : {}),
    };
  }

  /** The request body: forwarded as it comes, judged once complete, in its conversation's order. Resolves once its turn is over. */
  private forwardRequest(): Promise<void> {
    const { req, tap } = this;
    const body = new BodyCopy(tap.judge.cap);
    let bodyDone!: (judged: boolean) => void;
    const bodyReady = new Promise<boolean>((resolve) => (bodyDone = resolve));
    const copy = analysisStream(header(req, "content-encoding"), {
      chunk: (b) => body.push(b),
      end: () => bodyDone(true),
      skip: (why) => {
        tap.report.note(`${this.where}: the request body is not analysed: ${why}`);
        bodyDone(false);
      },
    });
    pipeThrough(
      req,
      this.up,
      (b) => copy.push(b),
      () => copy.end(),
    );
    // a body broken off is not judged, but the answers that still come belong somewhere
    req.once("close", () => {
      if (!req.complete) bodyDone(false);
    });
    const judge = (line = body.line()) => {
      const r = {
        line,
        http: this.http(),
        where: this.where,
        header: (name: string) => header(req, name),
        streamable: this.streamable,
        ...(this.sessionId !== undefined ? { session: this.sessionId } : {}),
      };
      this.bodiless = r.line.size === 0 && !r.line.overflow;
      const verdict = tap.judge.request(this.conversation, r);
      this.initialize = verdict.initialize;
      return verdict.judged;
    };
    return new Promise<void>((judged) => {
      tap.judge.conversations.inOrder(this.conversation, async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), BODY_WAIT_MS)));
        const ready = await Promise.race([bodyReady, late]);
        clearTimeout(timer);
        const line = ready === true ? body.line() : undefined;
        // an initialize goes at once: its answer binds the session the client's next request names
        if (line !== undefined && !this.conversation.bound && !isInitialize(line))
          await tap.judge.initializesJudged(this.conversation);
        let record: Promise<void> | undefined;
        if (line !== undefined) record = judge(line);
        else if (ready === "late") void bodyReady.then((ok) => (ok ? judge() : undefined));
        judged();
        // the conversation's next message waits until this one's record is complete
        await record;
      });
    });
  }

  /** The upstream's answer: passed on as it comes, its copy judged. */
  private answered(ures: IncomingMessage): void {
    const { res, tap, method, sessionId } = this;
    const c = this.conversation;
    const conversations = tap.judge.conversations;
    const status = ures.statusCode ?? 502;
    res.writeHead(status, ures.statusMessage ?? "", endToEnd(ures.rawHeaders));
    // an SSE client learns at once that its stream is open, before the first event
    res.flushHeaders();
    const type = (ures.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const answerSession = ures.headers[H_SESSION_ID] as string | undefined;
    const session = sessionId ?? answerSession;
    // The answer to initialize names the session the conversation goes on in: bound as soon as
    // the request is known to be initialize, not once it is judged, for the client's next
    // request names that session as soon as it has this answer.
    if (sessionId === undefined && answerSession !== undefined)
      void this.requestJudged.then(() => {
        if (this.initialize && !c.bound) conversations.bindSession(answerSession, c);
      });
    conversations.inOrder(c, async () => {
      await this.requestJudged;
      if (this.bodiless) tap.judge.bodilessRequest(c, this.http(status, type), session);
    });
    if (method === "DELETE" && sessionId !== undefined && status < 300) conversations.endSession(sessionId, c);

    const label = `${this.where} → ${status}${type === "text/event-stream" ? " SSE" : ""}`;
    const sink = tap.judge.answer(c, {
      method,
      status,
      type,
      http: this.http(status, type),
      label,
      path: this.path,
      ...(session !== undefined ? { session } : {}),
    });
    const copy = analysisStream(ures.headers["content-encoding"], {
      chunk: (b) => sink.chunk(b),
      end: () => {
        sink.end();
        this.analysed();
      },
      skip: (why) => {
        sink.skip(why);
        this.analysed();
      },
    });
    pipeThrough(
      ures,
      res,
      (b) => copy.push(b),
      () => copy.end(),
    );
    ures.once("close", () => {
      if (ures.complete) return;
      sink.gone?.();
      this.analysed();
    });
  }

  private failed(e: Error): void {
    const { res } = this;
    this.analysed();
    this.tap.report.note(`${this.where}: the upstream failed: ${e.message}`);
    if (!res.headersSent)
      res
        .writeHead(502, { "content-type": "text/plain; charset=utf-8" })
        .end(`mcp-wire tap: the upstream ${this.tap.upstream.url.origin} failed: ${e.message}\n`);
    else res.destroy();
  }
}
