/**
 * The tap's copy of a body for analysis: decompressed as it comes, kept up to the cap and only
 * counted past it. The pass-through never waits for it, and whatever goes wrong in it stops the
 * analysis of that body alone.
 */
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Line } from "../codec/lines.js";

/** A body copy for analysis: kept up to the cap, counted past it. */
export class BodyCopy {
  private parts: Buffer[] = [];
  size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.cap) this.parts.push(chunk);
    else this.parts = [];
  }
  line(): Line {
    if (this.size > this.cap) return { bytes: Buffer.alloc(0), crlf: false, overflow: true, size: this.size };
    const bytes = Buffer.concat(this.parts, this.size);
    return { bytes, crlf: false, overflow: false, size: bytes.length };
  }
}

/** Where a body's copy goes for analysis; `gone`: the stream broke off before its end. */
export interface Sink {
  chunk(b: Buffer): void;
  end(): void;
  skip(why: string): void;
  gone?(): void;
}

export const IGNORED: Sink = { chunk: () => undefined, end: () => undefined, skip: () => undefined };

/** The decompressor a body's copy needs before analysis; null: none; undefined: one we cannot undo. */
function decompressor(encoding: string | undefined) {
  const e = (encoding ?? "identity").trim().toLowerCase();
  if (e === "identity" || e === "") return null;
  if (e === "gzip" || e === "x-gzip") return createGunzip();
  if (e === "deflate") return createInflate();
  if (e === "br") return createBrotliDecompress();
  return undefined;
}

/**
 * Feeds a body's copy to `sink` decompressed, chunk by chunk. Returns the function that takes
 * the raw chunks and the one that ends the body; a body we cannot decompress is not analysed.
 * Whatever goes wrong in the analysis stops the analysis of this body alone: it runs inside the
 * pass-through's stream events, where an exception would end the tap and every exchange in it.
 */
export function analysisStream(
  encoding: string | undefined,
  sink: Omit<Sink, "gone">,
): { push(b: Buffer): void; end(): void } {
  let failed = false;
  const guarded =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A): void => {
      if (failed) return;
      try {
        f(...a);
      } catch (e) {
        failed = true;
        sink.skip(`the analysis failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
  const z = decompressor(encoding);
  if (z === undefined) {
    sink.skip(`content-encoding ${JSON.stringify(encoding)} is not one the tap can undo`);
    return { push: () => undefined, end: () => undefined };
  }
  if (z === null) return { push: guarded((b: Buffer) => sink.chunk(b)), end: guarded(() => sink.end()) };
  z.on(
    "data",
    guarded((b: Buffer) => sink.chunk(b)),
  );
  z.on(
    "end",
    guarded(() => sink.end()),
  );
  z.on("error", (e) => {
    if (failed) return;
    failed = true;
    sink.skip(`the ${encoding} body did not decompress: ${e.message}`);
  });
  return {
    push: guarded((b: Buffer) => void z.write(b)),
    end: guarded(() => void z.end()),
  };
}
