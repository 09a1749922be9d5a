/**
 * `mcp-wire replay <recording> -- <server command> | <url>`: sends the recorded requests to a
 * live server and shows every answer that changed, with its path. Exit 0 when all matched (or
 * with `--update`, once the file holds the live answers), 1 on a difference, 2 for a usage error
 * or a bad recording, 3 when the server could not be reached.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Transport } from "../peer/transport.js";
import { RecordingError } from "../recording/errors.js";
import type { Difference, Ignore } from "../replay/compare.js";
import type { ReplayReport } from "../replay/replay.js";
import { redact } from "../secrets/redact.js";
import { FOUND_PROBLEMS, OK, UNCHECKED, USAGE_ERROR, usageError } from "./exit.js";
import { parseHeaders } from "./headers.js";
import type { OutputJob } from "./output-file.js";
import { writeErr, writeOut } from "./output.js";
import { serverUrl } from "./target-url.js";

export interface ReplayCliOptions {
  header?: string[];
  ignore?: string[];
  skipMethod?: string[];
  json?: boolean;
  junit?: string;
  markdown?: string;
  force?: boolean;
  update?: boolean;
}

function usage(message: string): number {
  return usageError("replay", message);
}

export async function runReplay(file: string, target: readonly string[], opts: ReplayCliOptions): Promise<number> {
  if (target.length === 0)
    return usage("say which server: mcp-wire replay <recording> -- <server command> [args…] | <url>");
  const { parseIgnore } = await import("../replay/compare.js");
  const ignores: Ignore[] = [];
  for (const raw of opts.ignore ?? []) {
    const ig = parseIgnore(raw);
    if (typeof ig === "string") return usage(ig);
    ignores.push(ig);
  }
  const headers = parseHeaders(opts.header ?? []);
  if (typeof headers === "string") return usage(headers);
  const isUrl = target.length === 1 && /^https?:\/\//i.test(target[0]!);
  if (!isUrl && Object.keys(headers).length > 0)
    return usage("--header goes with a URL: a stdio server takes no headers");
  let url: URL | undefined;
  if (isUrl) {
    const u = serverUrl(target[0]!);
    if (!(u instanceof URL)) return usage(u.error);
    url = u;
  }
  const outputs = await refusedOutput(opts);
  if (outputs !== undefined) return usage(outputs);
  const { openScript } = await import("../mock/script.js");
  let script;
  try {
    script = await openScript(file);
  } catch (e) {
    if (e instanceof RecordingError) return usage(`cannot replay ${e.message}`);
    throw e;
  }
  const { replay } = await import("../replay/replay.js");
  const { ChildServer } = await import("../transport/child.js");
  const children: InstanceType<typeof ChildServer>[] = [];
  const ways = url
    ? await httpWays(url.href, headers, script.legacy)
    : {
        connect: () => {
          const child = new ChildServer(target[0]!, target.slice(1));
          children.push(child);
          return child.transport;
        },
      };
  let report: ReplayReport;
  const started = performance.now();
  try {
    report = await replay(script, { ...ways, ignores, skip: new Set(opts.skipMethod ?? []) });
  } catch (e) {
    // what the recording holds wrong further on than was read when the replay began
    if (e instanceof RecordingError) return usage(`cannot replay ${e.message}`);
    throw e;
  } finally {
    await Promise.all(children.map((c) => c.shutdown(2000).catch(() => undefined)));
  }
  const failed = await writeFiles(report, target.join(" "), performance.now() - started, opts);
  if (opts.json) await writeOut(redact(JSON.stringify(forJson(report))) + "\n");
  else await writeOut(text(report));
  if (failed !== undefined) {
    writeErr(`mcp-wire replay: ${failed}\n`);
    return USAGE_ERROR;
  }
  if (report.unreachable !== undefined) {
    writeErr(`mcp-wire replay: the server could not be reached: ${redact(report.unreachable)}\n`);
    return UNCHECKED;
  }
  if (opts.update && report.differences > 0) {
    update(file, report);
    writeErr(
      `mcp-wire replay: ${file} now holds the live answers of ${report.differences} request${report.differences === 1 ? "" : "s"}: review the change before committing it\n`,
    );
    return OK;
  }
  return report.differences > 0 ? FOUND_PROBLEMS : OK;
}

/**
 * The two HTTP transports to a URL, the recording's own first: a URL may speak Streamable HTTP or
 * HTTP+SSE whatever the recording was made over, and only the server can say which.
 */
async function httpWays(
  url: string,
  headers: Record<string, string>,
  legacy: boolean,
): Promise<{ connect: () => Transport; fallback: () => Transport }> {
  const { StreamableHttpTransport } = await import("../transport/http/client.js");
  const { SseClientTransport } = await import("../transport/http/sse-client.js");
  const streamable = () => new StreamableHttpTransport(url, { headers });
  const sse = () => new SseClientTransport(url, { headers });
  return legacy ? { connect: sse, fallback: streamable } : { connect: streamable, fallback: sse };
}

/** A `--junit` or `--markdown` file that may not be written, said before any work; else undefined. */
async function refusedOutput(opts: ReplayCliOptions): Promise<string | undefined> {
  if (opts.junit !== undefined && opts.junit === opts.markdown)
    return "--junit and --markdown each need a file of their own";
  const { checkOutput, outputProblem } = await import("./output-file.js");
  for (const [option, path] of [
    ["--junit", opts.junit],
    ["--markdown", opts.markdown],
  ] as const) {
    if (path === undefined) continue;
    try {
      await checkOutput(path, { force: opts.force === true, option });
    } catch (e) {
      return outputProblem(path, e);
    }
  }
  return undefined;
}

/** Writes `--junit` and `--markdown` with check's own writers; what went wrong, if anything. */
async function writeFiles(
  replayed: ReplayReport,
  target: string,
  elapsedMs: number,
  opts: ReplayCliOptions,
): Promise<string | undefined> {
  if (opts.junit === undefined && opts.markdown === undefined) return undefined;
  const { asCheckReport, replayRules } = await import("../replay/check-report.js");
  const { writeOutputs } = await import("./output-file.js");
  const report = asCheckReport(replayed, target, elapsedMs);
  const rules = replayRules(replayed);
  const writes: OutputJob[] = [
    [
      "--junit",
      opts.junit,
      async () => (await import("../check/junit.js")).renderJunit(report, rules, { command: "replay" }),
    ],
    [
      "--markdown",
      opts.markdown,
      async () => (await import("../check/markdown.js")).renderMarkdown(report, rules, { command: "replay" }),
    ],
  ];
  return writeOutputs(writes, opts.force === true);
}

/** The report as `--json` prints it: without the live answers kept for `--update`. */
function forJson(report: ReplayReport): unknown {
  return {
    ...report,
    conversations: report.conversations.map((c) => ({
      id: c.id,
      requests: c.requests.map(({ live: _, lineNo: __, ...r }) => r),
    })),
  };
}

function shown(v: unknown): string {
  return v === undefined ? "(absent)" : redact(JSON.stringify(v));
}

function diffLines(diffs: readonly Difference[]): string {
  return diffs.map((d) => `      ${d.path}: recorded ${shown(d.recorded)}, live ${shown(d.live)}\n`).join("");
}

function text(report: ReplayReport): string {
  let out = "";
  for (const c of report.conversations) {
    const n = c.requests.filter((r) => r.status === "different").length;
    out += `conversation ${c.id || "1"}: ${c.requests.length} request${c.requests.length === 1 ? "" : "s"}, ${n === 0 ? "all as recorded" : `${n} changed`}\n`;
    for (const r of c.requests) {
      const mark = r.status === "equal" ? "✓" : r.status === "different" ? "✗" : "-";
      out += `  ${mark} ${r.method} ${redact(r.params)}${r.status === "skipped" ? " (skipped)" : r.status === "unrecorded" ? " (no recorded answer)" : ""}\n`;
      out += diffLines(r.differences);
    }
  }
  out +=
    report.differences === 0
      ? "every answer as recorded\n"
      : `${report.differences} answer${report.differences === 1 ? "" : "s"} changed\n`;
  return out;
}

/** Writes the live answers over the recorded ones that differ, into a new file renamed into place. */
function update(file: string, report: ReplayReport): void {
  const replace = new Map<number, unknown>();
  for (const c of report.conversations)
    for (const r of c.requests) if (r.status === "different" && r.lineNo !== undefined) replace.set(r.lineNo, r.live);
  const lines = readFileSync(file, "utf8").split("\n");
  for (const [lineNo, live] of replace) {
    const record = JSON.parse(lines[lineNo - 1]!) as Record<string, unknown>;
    const recorded = JSON.parse(record.line as string) as Record<string, unknown>;
    record.line = redact(JSON.stringify({ jsonrpc: "2.0", id: recorded.id, ...(live as object) }));
    delete record.base64;
    record.kind = "error" in (live as object) ? "error" : "result";
    record.defects = [];
    lines[lineNo - 1] = JSON.stringify(record);
  }
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, lines.join("\n"));
  renameSync(temp, file);
}
