#!/usr/bin/env node
/**
 * The `mcp-wire` command: parses arguments and hands each subcommand to its module, loaded only
 * when that subcommand runs so start-up stays fast.
 */
import type { ReplayCliOptions } from "./replay.js";
import { Command, CommanderError, Option } from "commander";
import { REVISIONS } from "../rules/revisions.js";
import { FOUND_PROBLEMS, USAGE_ERROR } from "./exit.js";
import { fileProblem } from "./file-errors.js";
import { writeErr } from "./output.js";
import { installWayOut, leavingNow } from "./signals.js";
import { VERSION } from "../version.js";

// a signal or an early exit ends the child processes a command started
installWayOut();

// A reader that stops early (`| head`) is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

/** Collects a repeatable option's values. */
const REPEAT = (v: string, all: string[] = []): string[] => [...all, v];

const program = new Command("mcp-wire")
  .description("The JSON-RPC layer of the Model Context Protocol: check messages, captures and servers.")
  .version(VERSION, "-V, --version")
  .exitOverride()
  // commander's own messages ("error: unknown option '--x'") become one line naming the command
  // and where its options are listed; printing happens in the handler at the end
  .configureOutput({ outputError: () => undefined });

program
  .command("lint")
  .description("check newline-delimited JSON-RPC messages (a capture, or `tap --log` records) against an MCP revision")
  .argument("[file]", "the capture to read; - or nothing for standard input")
  .addOption(
    new Option("-r, --revision <revision>", "judge by this revision (default: read from the conversation)").choices(
      REVISIONS,
    ),
  )
  .option("--json", "print one JSON object per input line")
  .option("--schema", "also validate each message against its revision's official schema.json (docs/schema.md)")
  .addOption(
    new Option("--fail-on <severity>", "exit 1 on defects at or above this severity (default error)").choices([
      "error",
      "warning",
      "never",
    ]),
  )
  .action(
    async (
      file: string | undefined,
      opts: {
        revision?: (typeof REVISIONS)[number];
        json?: boolean;
        schema?: boolean;
        failOn?: "error" | "warning" | "never";
      },
    ) => {
      const { runLint } = await import("./lint.js");
      process.exitCode = await runLint(file, opts);
    },
  );

program
  .command("probe")
  .description("say exactly what a server speaks, or why it fails: mcp-wire probe <url> | --stdio -- <command> [args…]")
  .argument("<target...>", "the server's URL, or with --stdio the command that starts it")
  .option("--stdio", "start the server as a child process and speak over its stdin/stdout")
  .option("--json", "print one JSON object")
  .option("-v, --verbose", "show every exchange")
  .option(
    "-H, --header <header>",
    "'Name: value' sent with every HTTP request; ${VAR} reads the environment (repeatable)",
    (v: string, all: string[] = []) => [...all, v],
  )
  .option("--timeout <ms>", "one overall deadline (default 10000)")
  .addOption(new Option("-r, --revision <revision>", "speak exactly this revision").choices(REVISIONS))
  .option("--max-bytes <n>", "largest body read (default 4194304)")
  .addOption(
    new Option(
      "--fail-on <severity>",
      "exit 1 on a defect at or above this severity, even when the verdict is ok (default error)",
    ).choices(["error", "warning", "never"]),
  )
  .action(async (target: string[], opts) => {
    const { runProbe } = await import("./probe.js");
    process.exitCode = await runProbe(target, opts);
  });

program
  .command("check")
  .description(
    "check every rule a client relies on, read-only, in every revision the server speaks: mcp-wire check <url> | --stdio -- <command> [args…]",
  )
  .argument("<target...>", "the server's URL, or with --stdio the command that starts it")
  .option("--stdio", "start the server as a child process and speak over its stdin/stdout")
  .option("--json", "print one JSON object")
  .option(
    "-H, --header <header>",
    "'Name: value' sent with every HTTP request; ${VAR} reads the environment (repeatable)",
    REPEAT,
  )
  .option("--timeout <ms>", "the deadline of each step: opening a revision, each request (default 10000)")
  .option("-r, --revision <revision>", `check only this revision (repeatable): ${REVISIONS.join(", ")}`, REPEAT)
  .option("--env <NAME=VALUE>", "set in the stdio server's environment (repeatable)", REPEAT)
  .option("--cwd <dir>", "the stdio server's working directory")
  .option(
    "--only <ids>",
    "run only these checks (comma-separated ids, repeatable; mcp-wire explain lists them)",
    REPEAT,
  )
  .option("--skip <ids>", "leave these checks out (comma-separated ids, repeatable)", REPEAT)
  .option(
    "--call <NAME[=JSON]>",
    "call this tool (with these arguments) and check its result: a side effect you choose (repeatable)",
    REPEAT,
  )
  .option("--read <uri>", "read this resource (repeatable)", REPEAT)
  .option("--record <file>", "write every message of the check as a recording (mcp-wire mock and replay play it)")
  .option("--get <NAME[=JSON]>", "get this prompt (with these arguments) (repeatable)", REPEAT)
  .addOption(
    new Option("--fail-on <severity>", "exit 1 on findings at or above this severity (default error)").choices([
      "error",
      "warning",
      "never",
    ]),
  )
  .option("--junit <file>", "write JUnit XML: one case per check and revision that ran")
  .option("--sarif <file>", "write SARIF 2.1.0 for code scanning (with --sarif-location)")
  .option("--sarif-location <file>", "the repository file SARIF results are shown at, e.g. src/server.ts")
  .option("--markdown <file>", "write a Markdown summary for a CI job page")
  .option(
    "--baseline <file>",
    "accept the findings of an earlier check (--update-baseline or --json) for now; an entry that no longer occurs fails the run",
  )
  .option(
    "--update-baseline <file>",
    "write this run's findings as the baseline and exit 0 (3, writing nothing, when the target cannot be checked)",
  )
  .option(
    "--surface <file>",
    "the surface gate: record every tool, resource, template and prompt in FILE, or compare with it when it exists",
  )
  .option("--update-surface", "rewrite the --surface file with what the server lists now")
  .option("--force", "replace an existing --junit/--sarif/--markdown file that mcp-wire did not write")
  .option("--progress", "say on stderr what a step waits for, also when stderr is not a terminal (a CI log)")
  .option("--no-progress", "no progress line, even on a terminal")
  .action(async (target: string[], opts) => {
    const { runCheck } = await import("./check.js");
    process.exitCode = await runCheck(target, opts);
  });

program
  .command("gauntlet")
  .description(
    "score an MCP client against servers that hurt clients: mcp-wire gauntlet [options] -- <client command> | --listen [HOST:]PORT | --stdio-server SCENARIO --record FILE | --score FILE|DIR…",
  )
  .argument(
    "[command...]",
    "the client command, run once per scenario with the server's URL as its last argument (or at {url})",
  )
  .option(
    "--scenario <ids>",
    "run only these scenarios (comma-separated, repeatable; docs/gauntlet.md lists them)",
    REPEAT,
  )
  .option(
    "-r, --revision <revision>",
    `speak only this revision, and run each scenario once per named one (repeatable): ${REVISIONS.join(", ")}`,
    REPEAT,
  )
  .option("--stdio", "the client starts the server itself: {config} in its arguments is an mcp.json naming it")
  .option("--timeout <ms>", "each scenario's deadline (default 30000)")
  .option("--slow", "also run progress, a 70 s tool (the deadline becomes 120 s)")
  .option("--auth", "also run auth_challenge, a 401 with resource metadata")
  .option("--listen <[host:]port>", "attach: serve every scenario at /<scenario>/mcp (and /mcp) until interrupted")
  .option("--sessions <n>", "with --listen: stop after this many sessions have ended")
  .option(
    "--stdio-server <scenario>",
    "be this scenario's stdio server, for a host's configuration (with --record FILE)",
  )
  .option("--record <path>", "keep the recordings: a folder (run, --listen), or the file a --stdio-server appends to")
  .option("--score <paths...>", "score recordings made with --stdio-server or --record (files or folders)")
  .option("--json", "print the scorecard as one JSON object")
  .option("--junit <file>", "write JUnit XML: one case per check and revision")
  .option("--markdown <file>", "write a Markdown summary for a CI job page")
  .option(
    "--baseline <file>",
    "accept the checks an earlier gauntlet --json did not pass; an entry that no longer occurs fails the run",
  )
  .addOption(
    new Option(
      "--fail-on <severity>",
      "exit 1 on checks at or above this severity: fail is error, warn is warning (default error)",
    ).choices(["error", "warning", "never"]),
  )
  .option("--force", "replace an existing --junit/--markdown file that mcp-wire did not write")
  .action(async (command: string[], opts) => {
    const { runGauntlet } = await import("./gauntlet.js");
    process.exitCode = await runGauntlet(command, opts);
  });

program
  .command("serve")
  .description("run the dual-era reference server (echo, add, progress)")
  .option("--stdio", "serve on standard input and output (the default)")
  .option("--http <port>", "serve Streamable HTTP at http://HOST:PORT/mcp instead (0: any free port)")
  .option("--host <host>", "the address --http binds (default 127.0.0.1)")
  .option("--conformance", "add the tools, resources and prompts the official conformance suite calls")
  .action(async (opts: { stdio?: boolean; http?: string; host?: string; conformance?: boolean }) => {
    const { runServe } = await import("./serve.js");
    process.exitCode = await runServe(opts);
  });

program
  .command("tap")
  .description(
    "sit between a client and a server, pass every byte through and report each defect: tap -- <command> [args…] | --listen PORT --upstream URL",
  )
  .argument("[command...]", "the stdio server to run, after --")
  .option(
    "--log <file>",
    "write every message as an NDJSON record (mcp-wire lint reads it back) instead of live defects",
  )
  .addOption(
    new Option("-r, --revision <revision>", "judge by this revision (default: read from the conversation)").choices(
      REVISIONS,
    ),
  )
  .option("--listen <port>", "Streamable HTTP: listen on 127.0.0.1:PORT (0: any free port) as a reverse proxy")
  .option("--upstream <url>", "Streamable HTTP: the server's endpoint")
  .option("--no-schema", "do not validate messages against their revision's official schema.json")
  .action(
    async (
      command: string[],
      opts: {
        log?: string;
        revision?: (typeof REVISIONS)[number];
        listen?: string;
        upstream?: string;
        schema?: boolean;
      },
    ) => {
      const { runTap } = await import("./tap.js");
      process.exitCode = await runTap(command, opts);
    },
  );

program
  .command("mock")
  .description("serve a recording (tap --log, check --record) as a server: mock <recording> [--listen [HOST:]PORT]")
  .argument("<recording>", "the recording to serve")
  .option("--stdio", "serve on standard input and output (the default)")
  .option("--listen <address>", "serve HTTP on [HOST:]PORT (0: any free port; the URL is printed first)")
  .addOption(
    new Option("--match <mode>", "how requests find their recorded answers (default exact)").choices([
      "exact",
      "sequence",
      "method",
    ]),
  )
  .option("--strict", "exit 1 when any request had no recorded answer")
  .option("--sessions <n>", "with --listen: stop after N sessions ended")
  .action(
    async (
      file: string,
      opts: {
        stdio?: boolean;
        listen?: string;
        match?: "exact" | "sequence" | "method";
        strict?: boolean;
        sessions?: string;
      },
    ) => {
      const { runMock } = await import("./mock.js");
      process.exitCode = await runMock(file, opts);
    },
  );

program
  .command("replay")
  .description(
    "send a recording's requests to a live server and show what changed: replay <recording> -- <command> | <url>",
  )
  .argument("<recording>", "the recording to replay")
  .argument("<target...>", "after --: the server's command, or its URL")
  .option(
    "--header <header>",
    "a header for every HTTP request, 'Name: value' (repeatable; ${VAR} reads the environment)",
    REPEAT,
  )
  .option(
    "--ignore <pointer>",
    "leave out of the comparison: a JSON Pointer into every result, or METHOD:POINTER (repeatable)",
    REPEAT,
  )
  .option(
    "--skip-method <method>",
    "do not send requests of this method (repeatable): tools/call has side effects",
    REPEAT,
  )
  .option("--json", "print the report as JSON")
  .option("--junit <file>", "write JUnit XML: one case per method replayed, a failure per changed answer")
  .option("--markdown <file>", "write a Markdown summary for a CI job page")
  .option("--force", "replace an existing --junit/--markdown file that mcp-wire did not write")
  .option("--update", "write the live answers that differ into the recording (a new file renamed into place)")
  .action(async (file: string, target: string[], opts: ReplayCliOptions) => {
    const { runReplay } = await import("./replay.js");
    process.exitCode = await runReplay(file, target, opts);
  });

program
  .command("census")
  .description(
    "probe every target once and store each verdict: census <targets> (URLs one a line, or an MCP Registry export) | --resume",
  )
  .argument(
    "[targets]",
    "a text file of URLs (# comments), or a JSON export of the MCP Registry API (pages one after another, or an array of pages)",
  )
  .option("--db <file|url>", "the census database: an SQLite file (default mcp-wire.db) or a postgres:// URL")
  .option("--concurrency <n>", "probes in flight at once (default 32)")
  .option("--per-host <n>", "probes in flight at once to one host (default 1)")
  .option(
    "--per-host-gap <ms>",
    "the least time between the end of one probe of a host and the start of the next, across every worker (default 0)",
  )
  .option("--timeout <ms>", "each probe's overall deadline (default 10000)")
  .option(
    "-H, --header <header>",
    "'Name: value' sent to every target; ${VAR} reads the environment; never stored or printed (repeatable)",
    (v: string, all: string[] = []) => [...all, v],
  )
  .option("--resume", "finish the newest unfinished run in the database instead of starting one")
  .option(
    "--join [run]",
    "work on a run another census process started (PostgreSQL; default: the newest unfinished run)",
  )
  .option(
    "--lease <seconds>",
    "how long a shared run's claims outlive a worker that stops renewing them (PostgreSQL; default 30)",
  )
  .option("--allow-private", "call registry targets whose host is loopback, private, link-local or cloud metadata")
  .option(
    "--registry <url>",
    "read the MCP Registry's API at this base URL (https://registry.modelcontextprotocol.io) instead of a targets file: latest versions, active entries",
  )
  .option(
    "--updated-since <date>",
    "with --registry: only entries updated since this date (2026-07-20), time or span back (7d)",
  )
  .action(async (targets: string | undefined, opts) => {
    const { runCensusCli } = await import("./census.js");
    process.exitCode = await runCensusCli(targets, opts);
  });

program
  .command("report")
  .description("what a census found, in the words a person would write; or --json, --csv, --html FILE")
  .option("--db <file|url>", "the census database: an SQLite file (default mcp-wire.db) or a postgres:// URL")
  .option("--json", "print one JSON object")
  .option("--csv", "print one CSV row per target with its latest verdict")
  .option("--html <file>", "write one self-contained page with charts and a sortable table of targets")
  .option("--force", "replace an existing --html file that mcp-wire did not write (a symbolic link is never followed)")
  .option(
    "--since <date>",
    "attempts from this date (2026-07-20), time (2026-07-20T14:00) or span back (7d) on, across runs",
  )
  .option("--target <url>", "one target's attempts (its whole history unless --run or --since narrow it)")
  .option("--run <id>", "these runs (repeatable, or 3,4) instead of the latest", (v: string, all: string[] = []) => [
    ...all,
    v,
  ])
  .option(
    "--changes",
    "what changed per target between consecutive attempts since --since (default: the last 30 days): class, revision, tools added, removed or redefined",
  )
  .option(
    "--serve",
    "serve the census as a read-only web application: every server's status, uptime and latency, a page per server, a JSON API and badges",
  )
  .option("--port <n>", "with --serve: the port to listen on (default 8484; 0 picks a free one)")
  .option("--host <address>", "with --serve: the address to listen on (default 127.0.0.1, loopback only)")
  .option(
    "--public-url <url>",
    "with --serve: the address people reach the pages at (a reverse proxy's https://…), named in badge snippets",
  )
  .action(async (opts) => {
    const { runReport } = await import("./report.js");
    process.exitCode = await runReport(opts);
  });

program
  .command("prune")
  .description(
    "delete the attempts older than a date, so a census's history stays bounded; says how many first and asks (runs and targets stay)",
  )
  .requiredOption(
    "--before <date>",
    "delete attempts that started before this date (2026-07-20), time (2026-07-20T14:00) or span back (90d)",
  )
  .option("--db <file|url>", "the census database: an SQLite file (default mcp-wire.db) or a postgres:// URL")
  .option(
    "--yes",
    "delete without asking (for scripts; needed when stdin is no terminal, and for a date in the future)",
  )
  .option("--dry-run", "say how many attempts would be deleted, and delete nothing")
  .action(async (opts) => {
    const { runPrune } = await import("./prune.js");
    process.exitCode = await runPrune(opts);
  });

program
  .command("explain")
  .description("what a finding means and how to fix it, from the documentation shipped with mcp-wire (no id: every id)")
  .argument("[id]", "a finding's id, as check, SARIF, JUnit and Markdown name it")
  .action(async (id: string | undefined) => {
    const { runExplain } = await import("./explain.js");
    process.exitCode = await runExplain(id);
  });

program
  .command("demo")
  .description(
    "start a fleet of local servers that misbehave as real ones do, run a census over it into a database of its own, print the report and write the HTML page",
  )
  .option(
    "--db <file>",
    "the demo's SQLite file, emptied at each run (default mcp-wire-demo.db; a database holding any other census is refused)",
  )
  .option("--html <file>", "where to write the page (default mcp-wire-report.html)")
  .action(async (opts: { db?: string; html?: string }) => {
    const { runDemo } = await import("./demo.js");
    process.exitCode = await runDemo(opts);
  });

/** One line for anything unexpected, never a stack trace (MCP_WIRE_DEBUG=1 shows it). */
function unexpected(e: unknown): number {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const path = (e as NodeJS.ErrnoException | undefined)?.path;
  if (path && code && /^E[A-Z]+$/.test(code)) {
    // a file the user named, failing where no command expected it: their input, said in words
    writeErr(`mcp-wire: cannot use ${path}: ${fileProblem(e)}\n`);
    return USAGE_ERROR;
  }
  const message = e instanceof Error ? e.message : String(e);
  writeErr(
    `mcp-wire: internal error: ${message.split("\n")[0]!.slice(0, 300)} (a bug in mcp-wire: please report it with the command that caused it; MCP_WIRE_DEBUG=1 prints the details)\n`,
  );
  if (process.env.MCP_WIRE_DEBUG) writeErr(`${e instanceof Error ? e.stack : message}\n`);
  return FOUND_PROBLEMS;
}

/** Which subcommand the arguments name, for the one-line usage message. */
function commandNamed(argv: readonly string[]): Command | undefined {
  const word = argv.slice(2).find((a) => !a.startsWith("-"));
  return program.commands.find((c) => c.name() === word || c.aliases().includes(word ?? ""));
}

/** What a command without its required argument says instead of commander's "missing required argument". */
const MISSING: Record<string, string> = {
  check: "say which server: mcp-wire check <url>, or mcp-wire check --stdio -- <command> [args…]",
  probe: "say which server: mcp-wire probe <url>, or mcp-wire probe --stdio -- <command> [args…]",
};

/** commander's error as one line: what is wrong, and where the options are listed. */
function usageLine(e: CommanderError): string {
  const command = e.code === "commander.unknownCommand" ? undefined : commandNamed(process.argv);
  const name = command ? `mcp-wire ${command.name()}` : "mcp-wire";
  const what =
    (e.code === "commander.missingArgument" && command && MISSING[command.name()]) ||
    e.message
      .replace(/^error: /, "")
      .replace(/\.$/, "")
      .split("\n")[0]!;
  return `${name}: ${what} (${name} --help lists ${command ? "its options" : "the commands"})\n`;
}

process.on("uncaughtException", (e) => {
  // stopped by a signal, the process is on its way out with the signal's status
  if (leavingNow()) return;
  process.exitCode = unexpected(e);
  process.exit();
});
process.on("unhandledRejection", (e) => {
  if (leavingNow()) return;
  process.exitCode = unexpected(e);
  process.exit();
});

if (process.argv.length <= 2) {
  writeErr(
    `mcp-wire: say what to do: ${program.commands.map((c) => c.name()).join(", ")} (mcp-wire --help says what each does)\n`,
  );
  process.exitCode = USAGE_ERROR;
} else {
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version asked for are not errors
      if (e.exitCode === 0 || e.code === "commander.helpDisplayed" || e.code === "commander.version")
        process.exitCode = 0;
      else {
        writeErr(usageLine(e));
        process.exitCode = USAGE_ERROR;
      }
    } else process.exitCode = unexpected(e);
  }
}
