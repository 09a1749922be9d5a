/** Whole-number options (`--timeout`, `--concurrency`, a port): a range, said in the refusal. */

/**
 * `raw` as a whole number within `min`…`max`, or the one line that says what is allowed. `unit`
 * names what the number counts ("milliseconds"); `hint` says what the bounds mean.
 */
export function wholeNumber(
  flag: string,
  raw: string,
  min: number,
  max: number,
  unit: string,
  hint = "",
): number | { error: string } {
  const n = /^\s*[+]?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
  return {
    error: `${flag} takes ${unit} from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}${hint ? ` (${hint})` : ""}, not ${JSON.stringify(raw)}`,
  };
}

/** The longest deadline a timer can keep (Node's timers hold 2^31-1 ms): about 24.8 days, a day is plenty. */
export const MAX_TIMEOUT_MS = 86_400_000;
