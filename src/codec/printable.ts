/**
 * Text a peer sent, made safe to print on a terminal or into a CI log: every control a terminal
 * or a log reader would act on (C0, DEL, C1 — escape sequences, carriage returns, line breaks that
 * would start a `::workflow-command::` line) and the bidirectional controls that could reorder a
 * line are shown as `\uXXXX`, so a server's strings — messages, names, JSON Pointer paths — read
 * as what they are and never act.
 */
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(ACTIVE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
