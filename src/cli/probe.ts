/** `mcp-wire probe`: one verdict a person can act on, or one JSON object with `--json`. */
import { printable } from "../codec/printable.js";
import type { Revision } from "../rules/revisions.js";
import type { ProbeResult } from "../probe/verdict.js";
import { authLines } from "../auth/words.js";
import { atOrAbove } from "../check/fail-on.js";
import type { FailOn } from "../check/types.js";
import { FOUND_PROBLEMS, OK, usageError } from "./exit.js";
import { parseHeaders } from "./headers.js";
import { MAX_TIMEOUT_MS, wholeNumber } from "./numbers.js";
import { serverUrl } from "./target-url.js";

/** The largest body cap a probe takes: a body is held in memory whole. */
const MAX_BODY_BYTES = 1024 ** 3;
import { paint, writeOut } from "./output.js";

export interface ProbeCliOptions {
  stdio?: boolean;
  json?: boolean;
  verbose?: boolean;
  header?: string[];
  timeout?: string;
  revision?: Revision;
  maxBytes?: string;
  failOn?: FailOn;
}

export async function runProbe(target: string[], opts: ProbeCliOptions): Promise<number> {
  const headers = parseHeaders(opts.header ?? []);
  if (typeof headers === "string") return usage(headers);
  const timeout =
    opts.timeout === undefined
      ? undefined
      : wholeNumber("--timeout", opts.timeout, 1, MAX_TIMEOUT_MS, "milliseconds", "a day at most");
  if (typeof timeout === "object") return usage(timeout.error);
  const maxBytes =
    opts.maxBytes === undefined
      ? undefined
      : wholeNumber("--max-bytes", opts.maxBytes, 1, MAX_BODY_BYTES, "bytes", "1 GiB at most");
  if (typeof maxBytes === "object") return usage(maxBytes.error);
  const common = {
    ...(timeout !== undefined ? { timeout } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    ...(opts.revision ? { revision: opts.revision } : {}),
  };

  const { probeHttp, probeStdio } = await import("../probe/probe.js");
  let result: ProbeResult;
  if (opts.stdio) {
    const [command, ...args] = target;
    if (!command) return usage("probe --stdio needs a command: mcp-wire probe --stdio -- <command> [args…]");
    if (/^https?:\/\//i.test(command))
      return usage(`--stdio starts a command, and ${JSON.stringify(command)} is a URL: mcp-wire probe <url> calls it`);
    result = await probeStdio(command, args, common);
  } else {
    const url = target[0];
    if (!url || target.length > 1) return usage("probe needs one URL, or --stdio -- <command> [args…]");
    const parsed = serverUrl(url, "for a local command use --stdio -- <command>");
    if (!(parsed instanceof URL)) return usage(parsed.error);
    result = await probeHttp(url, { ...common, headers });
  }
  // an ok verdict that broke a rule on the way (a log line on stdout, a text/plain answer) fails too
  const failOn = opts.failOn ?? "error";
  const failing = result.defects.filter((d) => atOrAbove(d.severity, failOn)).length;
  await writeOut(
    opts.json
      ? JSON.stringify(result) + "\n"
      : render(result, opts.verbose === true, process.stdout.isTTY === true, { failing, failOn }),
  );
  return result.class === "ok" && failing === 0 ? OK : FOUND_PROBLEMS;
}

function usage(message: string): number {
  return usageError("probe", message);
}

function render(r: ProbeResult, verbose: boolean, colour: boolean, gate: { failing: number; failOn: string }): string {
  const ok = r.class === "ok";
  const mark = ok ? paint("green", "✓ ok", colour) : paint("red", `✗ ${r.class}`, colour);
  const lines = [`${mark} (${r.detail})  ${r.target}`];
  // the verdict is ok, yet the exit status is 1: the reason is said where the verdict is
  if (ok && gate.failing > 0)
    lines.push(
      `  ${paint("red", "exit 1", colour)}: the server answers, but broke ${gate.failing === 1 ? "a rule" : `${gate.failing} rules`} at ${gate.failOn === "error" ? "error" : `${gate.failOn} or above`} on the way (the defects below); --fail-on never passes it anyway`,
    );
  const evidence: string[] = [];
  if (r.era) evidence.push(`${r.era} era${r.revision ? `, ${r.revision}` : ""}`);
  evidence.push(r.transport);
  // the server names itself: shown as text, never acted on by the terminal or a CI log
  if (r.server)
    evidence.push(`server ${printable(r.server.name)}${r.server.version ? ` ${printable(r.server.version)}` : ""}`);
  if (r.tools !== null) evidence.push(`${r.tools} tool${r.tools === 1 ? "" : "s"}`);
  if (r.http && !ok) evidence.push(`HTTP ${r.http.status}${r.http.contentType ? ` ${r.http.contentType}` : ""}`);
  if (r.rpcError)
    evidence.push(`JSON-RPC ${r.rpcError.code} (${r.rpcError.range}) ${JSON.stringify(r.rpcError.message)}`);
  evidence.push(`${r.elapsedMs} ms`);
  lines.push(`  ${evidence.join(" · ")}`);
  const body = !ok ? [...r.trace].reverse().find((t) => t.bodyExcerpt)?.bodyExcerpt : undefined;
  // a stdio trace keeps what the server wrote on stderr, not a body
  const label = r.transport === "stdio" ? "stderr" : "body";
  if (body) lines.push(`  ${label}: ${JSON.stringify(body.length > 160 ? `${body.slice(0, 160)}…` : body)}`);
  lines.push("", wrap(printable(r.advice), 2));
  if (r.auth) lines.push("", ...authLines(r.auth).map((l) => (l ? `  ${l}` : l)));
  if (r.defects.length > 0) {
    lines.push("", `  ${r.defects.length} defect${r.defects.length === 1 ? "" : "s"} seen:`);
    for (const d of r.defects.slice(0, verbose ? 50 : 5))
      lines.push(`    ${d.severity} ${d.code}${d.path ? ` at ${printable(d.path)}` : ""}: ${printable(d.message)}`);
  }
  if (r.repro) lines.push("", `  replay: ${r.repro}`);
  if (verbose) {
    lines.push("", "  trace:");
    for (const t of r.trace) {
      lines.push(
        `    ${t.step}${t.status !== undefined ? ` → HTTP ${t.status}` : ""}${t.contentType ? ` ${printable(t.contentType)}` : ""} (${t.ms} ms)${t.error ? `: ${printable(t.error)}` : ""}`,
      );
      if (t.bodyExcerpt) lines.push(`      ${JSON.stringify(t.bodyExcerpt.slice(0, 200))}`);
    }
  }
  return lines.join("\n") + "\n";
}

function wrap(text: string, indent: number): string {
  const width = Math.max(40, (process.stdout.columns ?? 100) - indent);
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out.map((l) => " ".repeat(indent) + l).join("\n");
}
