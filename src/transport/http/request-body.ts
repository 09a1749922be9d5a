/**
 * A request body read to its end within the size cap, the deadline and the server's byte budget,
 * for the server (server.ts) to parse, or to refuse with the status the failure calls for.
 */
import { keepShape } from "../../peer/shapes.js";
import { ByteBudget, SMALL_BODY } from "./budget.js";
import type { HttpRequestLike } from "./exchange.js";

/** Why a body was not read: too large (413), too slow (408), no room in the budget (503), the client gone. */
export type BodyFailure = "too_large" | "timeout" | "busy" | "gone";

const TIMED_OUT = Symbol("timed out");

/**
 * One body being read. A declared length is taken from the budget whole before reading; a
 * chunked body takes its bytes as they come. A body of declared size that comes as one chunk
 * (nearly all) is kept as it is; in several, they fill one buffer of that size in place: no list
 * of chunks, no copy to join them.
 */
export class RequestBody {
  /** Bytes taken from the budget: the caller gives them back once the body is parsed, or refused. */
  held = 0;
  private size = 0;
  private single: Uint8Array | undefined;
  private whole: Buffer | undefined;
  private chunks: Uint8Array[] | undefined;
  private readonly started = Date.now();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deadline: Promise<typeof TIMED_OUT> | undefined;
  /** Whether the one microtask's look for the body that came with the headers was taken. */
  private looked = false;

  /** `declared`: the body's length from Content-Length, when it is a usable one. */
  constructor(
    private readonly req: HttpRequestLike,
    private readonly budget: ByteBudget,
    private readonly maxBytes: number,
    private readonly timeoutMs: number,
    private readonly declared: number | undefined,
  ) {}

  /** The whole body, or why not; `budgetWaitMs` is how long it waits for room in the budget. */
  async read(budgetWaitMs: number): Promise<Uint8Array | BodyFailure> {
    const declared = this.declared;
    if (declared !== undefined && declared > 0) {
      if (!this.budget.tryTake(declared) && !(await this.budget.take(declared, budgetWaitMs))) return "busy";
      this.held = declared;
    }
    try {
      // every declared byte is here: what follows on the connection is the next request, so the
      // body's end (which node marks a little later) needs no wait
      while (declared === undefined || this.size !== declared) {
        let chunk = this.arrived();
        if (chunk === null && !this.looked && this.req.readNow) {
          // node:http emits the request as its headers are parsed and pushes the body that came
          // in the same packet only after the handler returns: one microtask later it is there
          this.looked = true;
          await undefined;
          chunk = this.req.readNow();
        }
        if (chunk === null) {
          const next = await this.arrival();
          if (next === TIMED_OUT) return "timeout";
          chunk = next;
        }
        if (chunk === undefined) break;
        const end = this.size + chunk.byteLength;
        if (end > this.maxBytes || (declared !== undefined && end > declared)) return "too_large";
        if (end > this.held && !this.holdNow(end) && !(await this.holdLater(end, budgetWaitMs))) return "busy";
        this.keep(chunk, end);
      }
    } catch {
      return "gone";
    } finally {
      clearTimeout(this.timer);
    }
    return this.body();
  }

  /** The next chunk if it is here already (most small bodies are, with the headers): no timer unless there is a wait. */
  private arrived(): Uint8Array | undefined | null {
    return this.req.readNow ? this.req.readNow() : null;
  }

  /** The next chunk once it comes, or TIMED_OUT when the body's time is up. */
  private arrival(): Promise<Uint8Array | undefined | typeof TIMED_OUT> {
    this.deadline ??= new Promise<typeof TIMED_OUT>((resolve) => {
      this.timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, this.timeoutMs - (Date.now() - this.started)));
    });
    return Promise.race([this.req.read(), this.deadline]);
  }

  /** Takes the budget for the body up to `end` if there is room now. */
  private holdNow(end: number): boolean {
    if (!this.budget.tryTake(end - this.held, end <= SMALL_BODY)) return false;
    this.held = end;
    return true;
  }

  /** Waits for room in the budget for the body up to `end`; false if none came in time. */
  private async holdLater(end: number, budgetWaitMs: number): Promise<boolean> {
    if (!(await this.budget.take(end - this.held, budgetWaitMs, end <= SMALL_BODY))) return false;
    this.held = end;
    return true;
  }

  private keep(chunk: Uint8Array, end: number): void {
    if (this.declared === undefined) (this.chunks ??= []).push(chunk);
    else if (this.size === 0 && chunk.byteLength === this.declared) this.single = chunk;
    else (this.whole ??= Buffer.allocUnsafe(this.declared)).set(chunk, this.size);
    this.size = end;
  }

  private body(): Uint8Array {
    if (this.single !== undefined) return this.single;
    if (this.declared !== undefined) {
      if (this.whole === undefined) return Buffer.alloc(0);
      return this.size === this.declared ? this.whole : this.whole.subarray(0, this.size);
    }
    if (this.chunks === undefined) return Buffer.alloc(0);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

// made per request whose body does not come whole with its headers (see shapes.ts)
keepShape(new RequestBody({} as HttpRequestLike, new ByteBudget(1, 0), 0, 0, undefined), "http");
