/**
 * Waiting for the next chunk of a paused node:http stream (a request body on the server, an
 * answer's body on the client): both read what has arrived at once and wait only when nothing
 * has, and a wait must end on data, on the end, on an error and on an early close alike.
 */
import type { Readable } from "node:stream";

/**
 * Resolves with what `take` gives once it gives something (a chunk, or undefined at the end; null
 * means nothing yet), with undefined at the stream's end; rejects with its error, or with what
 * `gone` makes when it closes before its end.
 */
export function nextChunk(
  stream: Readable,
  take: () => Uint8Array | undefined | null,
  gone: () => Error,
): Promise<Uint8Array | undefined> {
  return new Promise<Uint8Array | undefined>((resolve, reject) => {
    const cleanup = () => {
      stream.off("readable", onReadable);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
    };
    const onReadable = () => {
      const next = take();
      if (next === null) return;
      cleanup();
      resolve(next);
    };
    const onEnd = () => {
      cleanup();
      resolve(undefined);
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onClose = () => {
      cleanup();
      if (stream.readableEnded) resolve(undefined);
      else reject(gone());
    };
    stream.on("readable", onReadable);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}
