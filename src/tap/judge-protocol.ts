/**
 * What the tap's main thread and its judging thread say to each other (judge-thread.ts,
 * judge-worker.ts). The main thread forwards bytes and hands each message over; the judging
 * thread decodes it, follows its conversation, holds it to the schema, and says what it found.
 */
import type { Defect } from "../codec/defects.js";
import type { LineContext, LintRecord } from "../lint/lint.js";
import type { TapJudgingOptions } from "./judging.js";

/** The request headers that mirror the body (2026-07-28), by lower-case name, for a Streamable HTTP POST. */
export type MirroredHeaders = Readonly<Record<string, string>>;

export type ToJudge =
  | {
      readonly type: "line";
      readonly seq: number;
      readonly bytes: Uint8Array;
      readonly crlf: boolean;
      readonly overflow: boolean;
      readonly size: number;
      readonly prefix?: Uint8Array;
      readonly suffix?: Uint8Array;
      readonly context: LineContext;
      readonly headers?: MirroredHeaders;
    }
  /** The conversation is over: its state is dropped. */
  | { readonly type: "end"; readonly conversation: string }
  /** How each conversation was judged so far, for the summary. */
  | { readonly type: "revisions"; readonly seq: number }
  /** Stop judging: end the validation thread; what waits is reported as not judged. */
  | { readonly type: "close"; readonly seq: number };

export type FromJudge =
  | { readonly seq: number; readonly kind: LintRecord["kind"]; readonly defects: Defect[] }
  | { readonly seq: number; readonly failed: string }
  | { readonly seq: number; readonly revisions: string }
  | { readonly seq: number; readonly closed: true };

export type JudgeThreadOptions = TapJudgingOptions;
