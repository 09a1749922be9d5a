/**
 * ajv as mcp-wire runs it: the options, formats and regular-expression engine that every
 * validator is made with, whether compiled when a peer's schema arrives (json-schema.ts) or ahead
 * of time from the vendored schemas (compile.ts). One place, so the two never drift apart.
 */
import { createRequire } from "node:module";
import type { Ajv, Format, Options } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { RE2JS } from "re2js";

export type Dialect = "draft-07" | "2020-12";

const require = createRequire(import.meta.url);

/**
 * ajv and its formats (CommonJS), required when the first validator is made rather than with
 * this module: they take some 100 ms to load, which a process that validates later (the
 * gauntlet's server, while its client boots) or never need not wait for first.
 */
interface Engines {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv) => Ajv;
}
let engines: Engines | undefined;
function loadEngines(): Engines {
  if (engines !== undefined) return engines;
  // ajv-formats' plugin is `module.exports`, with itself as `default` too
  const formats = require("ajv-formats") as { default?: Engines["addFormats"] } & Engines["addFormats"];
  engines = {
    Ajv: (require("ajv") as { Ajv: typeof Ajv }).Ajv,
    Ajv2020: (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    addFormats: formats.default ?? formats,
  };
  return engines;
}

/** ajv as the official conformance suite configures it for these schemas: lenient about unknown keywords, every error reported. */
const OPTIONS: Options = { strict: false, allErrors: true };
/**
 * `verbose` adds each error's schema objects, which name the union branch an error came from (see
 * `branchOf` in load.ts). Two validators of each definition: one that stops at the first error,
 * for the verdict (and the defect of a large message), and one that collects every error, for the
 * defects of a small one. Collecting every error costs more than linear time in their number,
 * so a hostile message with thousands of broken items is never given to it.
 */
export const FIRST_ERROR_OPTIONS: Options = { ...OPTIONS, allErrors: false, verbose: true };
export const ALL_ERRORS_OPTIONS: Options = { ...OPTIONS, verbose: true };

export type ErrorMode = "first" | "all";

/**
 * `pattern` on a linear-time engine (RE2): a peer's schema may carry `^(a+)+$`, which a
 * backtracking engine takes exponential time on, and nothing can interrupt a running RegExp. A
 * pattern RE2 cannot run (lookaround, backreferences) is not checked: it accepts every string.
 * Code compiled ahead of time calls it by the name in `code`, which its module is handed.
 */
export const linearRegExp = Object.assign(
  (pattern: string): { test(s: string): boolean; toString(): string } => {
    // ajv keys the patterns it keeps by this string: each pattern needs its own
    const toString = () => `/${pattern}/`;
    try {
      const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
      return { test: (s: string) => re.test(s), toString };
    } catch {
      return { test: () => true, toString };
    }
  },
  { code: "linearRegExp" },
);

/** A URL as ajv-formats' `url` reads it, without its regular expression, which is quadratic on some inputs. */
function isUrl(s: string): boolean {
  if (s.length > 8192 || !/^(?:https?|ftp):\/\//i.test(s)) return false;
  return URL.canParse(s);
}

/**
 * `byte` (base64 data) is not a format ajv knows: accepted as any string, the conformance suite's
 * reading, since the `type: "string"` beside it still holds. `url` replaces ajv-formats' own.
 */
const OWN_FORMATS: Readonly<Record<string, Format>> = { byte: true, url: isUrl };

let formats: Readonly<Record<string, Format>> | undefined;
/**
 * Every format a validator knows, by name: ajv-formats' full set with ours over it. Code compiled
 * ahead of time reads its formats from this object (it is handed it as `formats`).
 */
export function allFormats(): Readonly<Record<string, Format>> {
  formats ??= { ...(require("ajv-formats/dist/formats") as { fullFormats: Record<string, Format> }).fullFormats, ...OWN_FORMATS };
  return formats;
}

/** A fresh ajv of `dialect`, with the formats the MCP schemas use. */
export function newAjv(dialect: Dialect, options: Options = OPTIONS): Ajv {
  const withEngine: Options = { ...options, code: { ...options.code, regExp: linearRegExp } };
  const { Ajv, Ajv2020, addFormats } = loadEngines();
  const ajv = dialect === "2020-12" ? new Ajv2020(withEngine) : new Ajv(withEngine);
  addFormats(ajv);
  for (const [name, format] of Object.entries(OWN_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}
