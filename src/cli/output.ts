/**
 * Terminal output with back-pressure, and colour only when a person is watching. Every line
 * passes through the one redaction function on its way out: whatever a command prints, a
 * credential in it is shown as `<redacted>`.
 */
import { redact } from "../secrets/redact.js";

/** Writes to stdout; resolves when the stream can take more, so huge outputs stay bounded. */
export function writeOut(text: string): Promise<void> | void {
  if (process.stdout.write(redact(text))) return;
  return new Promise((resolve) => process.stdout.once("drain", resolve));
}

/** Writes a message for a person to stderr. */
export function writeErr(text: string): void {
  process.stderr.write(redact(text));
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

export function paint(colour: keyof typeof CODES, text: string, enabled: boolean): string {
  return enabled ? `\x1b[${CODES[colour]}m${text}\x1b[0m` : text;
}
