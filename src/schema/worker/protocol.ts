/**
 * What the validation worker and its owner say to each other. One message at a time is judged,
 * in the order sent; every answer names the job it answers.
 */
import type { Defect } from "../../codec/defects.js";
import type { ValidateOptions } from "../validate.js";

/** A message to judge: its JSON text (as sent, bytes or a string) and how to judge it. */
export interface JobMessage {
  readonly id: number;
  readonly text: string | Uint8Array;
  readonly options: ValidateOptions;
}

export type WorkerMessage =
  /** The worker has loaded the validator: budgets run from here on. */
  | { readonly ready: true }
  /** The worker began (true) or ended (false) compiling one of mcp-wire's own schemas: not the message's cost. */
  | { readonly compiling: boolean }
  /** `ms`: how long judging it took, compiling aside. */
  | { readonly id: number; readonly defects: Defect[]; readonly ms: number }
  /** The text could not be judged at all (it did not parse here as it did in the codec). */
  | { readonly id: number; readonly failed: string };
