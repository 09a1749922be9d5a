/**
 * The tap's judging thread: every message the tap forwards, decoded, followed in its
 * conversation and held to the schema here, so that no cost of judging (a 900 KB message of
 * 300,000 objects takes a quarter of a second to parse) ever holds up the forwarding thread. The
 * schema's own thread, which a budget can end, is started from here (judging.ts).
 */
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { parseJson } from "../codec/parse.js";
import type { Line } from "../codec/lines.js";
import type { Defect } from "../codec/defects.js";
import type { LintRecord } from "../lint/lint.js";
import { checkRequestHeaders } from "./header-checks.js";
import { TapJudging } from "./judging.js";
import type { FromJudge, JudgeThreadOptions, MirroredHeaders, ToJudge } from "./judge-protocol.js";

const port = parentPort;
if (port === null) throw new Error("the tap's judging thread runs only as a worker thread");
const post = (m: FromJudge) => port.postMessage(m);
// Judging yields the CPU to the thread that forwards: on a busy machine it falls behind, never
// the bytes. (On Linux a priority set with pid 0 is the calling thread's alone; where it cannot
// be lowered, judging runs at the process's.)
try {
  setPriority(0, 10);
} catch {
  // not permitted here: no harm
}
const judging = new TapJudging(workerData as JudgeThreadOptions);

const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** A Streamable HTTP request's headers against its body, by the revision its session settled on. */
function headerDefects(line: Line, conversation: string | undefined, headers: MirroredHeaders): Defect[] {
  let parsed: unknown;
  if (!line.overflow && line.size > 0) {
    try {
      parsed = parseJson(line.bytes.toString("utf8"));
    } catch {
      // the codec says what is wrong with it
    }
  }
  const s = conversation !== undefined ? judging.linter.revisionOf(conversation) : undefined;
  const negotiated = s?.revisionSource === "initialize result" ? s.revision : undefined;
  return checkRequestHeaders(parsed, { header: (name) => headers[name], ...(negotiated ? { negotiated } : {}) });
}

function judge(m: Extract<ToJudge, { type: "line" }>): void {
  const line: Line = { bytes: buffer(m.bytes), crlf: m.crlf, overflow: m.overflow, size: m.size };
  if (m.prefix) line.prefix = buffer(m.prefix);
  if (m.suffix) line.suffix = buffer(m.suffix);
  // asked before the message is judged: the headers mirror what was settled before it
  const extra = m.headers !== undefined ? headerDefects(line, m.context.conversation, m.headers) : [];
  const record = judging.judge(line, m.context);
  const send = (r: LintRecord) =>
    post({ seq: m.seq, kind: r.kind, defects: extra.length > 0 ? r.defects.concat(extra) : r.defects });
  if (record instanceof Promise)
    record.then(send, (e: unknown) => post({ seq: m.seq, failed: e instanceof Error ? e.message : String(e) }));
  else send(record);
}

port.on("message", (m: ToJudge) => {
  try {
    if (m.type === "line") judge(m);
    else if (m.type === "end") judging.linter.end(m.conversation);
    else if (m.type === "revisions") post({ seq: m.seq, revisions: judging.linter.revisions() });
    else void judging.close().then(() => post({ seq: m.seq, closed: true }));
  } catch (e) {
    if ("seq" in m) post({ seq: m.seq, failed: e instanceof Error ? e.message : String(e) });
  }
});
