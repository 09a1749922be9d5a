/**
 * mcp-wire's version, read once from its own package.json (two folders up from the compiled
 * `dist/src/version.js`, in a checkout and in an installed package alike), so the command's
 * `--version` and the implementation info every client and server sends never disagree.
 */
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
  homepage?: unknown;
};

export const VERSION: string = manifest.version;

/** The package's `homepage`, when package.json names one (SARIF links its rules there). */
export const HOMEPAGE: string | undefined = typeof manifest.homepage === "string" ? manifest.homepage : undefined;
