/**
 * The schema layer (ajv and the official schemas) loaded on first use: most peers never validate,
 * and importing mcp-wire/peer must not cost them ajv.
 */
import type { validate } from "../schema/validate.js";

export type Validate = typeof validate;

let loaded: Validate | undefined;
let loading: Promise<Validate> | undefined;

/** `validate` once `loadValidate` has settled, else `undefined`. */
export function loadedValidate(): Validate | undefined {
  return loaded;
}

/** Starts loading the schema layer (once per process) and settles with its `validate`. */
export function loadValidate(): Promise<Validate> {
  return (loading ??= import("../schema/validate.js").then((m) => (loaded = m.validate)));
}
