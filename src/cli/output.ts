/** Terminal output with back-pressure, and colour only when a person is watching. */

/** Writes to stdout; resolves when the stream can take more, so huge outputs stay bounded. */
export function writeOut(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once("drain", resolve));
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

export function paint(colour: keyof typeof CODES, text: string, enabled: boolean): string {
  return enabled ? `\x1b[${CODES[colour]}m${text}\x1b[0m` : text;
}
