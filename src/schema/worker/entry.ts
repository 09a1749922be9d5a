/**
 * The validation worker's own thread: each message it is given, parsed and held to its
 * revision's schema, one after another. Its owner (validation-worker.ts) ends it when one takes
 * longer than the budget, which nothing inside a synchronous ajv or RegExp call could do.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { parseJson } from "../../codec/parse.js";
import { observeCompiles } from "../load.js";
import { validate } from "../validate.js";
import type { JobMessage, WorkerMessage } from "./protocol.js";

const port = parentPort;
if (port === null) throw new Error("the validation worker runs only as a worker thread");
const post = (m: WorkerMessage) => port.postMessage(m);
// Judging yields the CPU to the thread that forwards: on a busy machine it falls behind, never
// the bytes. (On Linux a priority set with pid 0 is the calling thread's alone; where it cannot
// be lowered, judging runs at the process's.)
try {
  setPriority(0, 10);
} catch {
  // not permitted here: no harm
}
const decoder = new TextDecoder("utf-8");

/** Milliseconds spent compiling during the job at hand, and since when the compile running now. */
let compiled = 0;
let compiling = 0;
observeCompiles((begins) => {
  if (begins) compiling = performance.now();
  else compiled += performance.now() - compiling;
  post({ compiling: begins });
});
port.on("message", (job: JobMessage) => {
  try {
    const start = performance.now();
    compiled = 0;
    let text = typeof job.text === "string" ? job.text : decoder.decode(job.text);
    // the codec judged a byte order mark already; the value behind it is what the schema judges
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const defects = validate(parseJson(text), job.options);
    post({ id: job.id, defects, ms: performance.now() - start - compiled });
  } catch (error) {
    post({ id: job.id, failed: error instanceof Error ? error.message : String(error) });
  }
});
post({ ready: true });
