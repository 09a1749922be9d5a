/**
 * `mcp-wire census <targets>`: probes every target once into the census database, with a
 * progress bar, and says at the end what it found. Ctrl-C stops cleanly and says how to resume.
 */
import type { TargetList } from "../census/targets.js";
import { DEFAULT_DB, isPostgresUrl, openStore, type OpenMode } from "../census/open-store.js";
import { SecretSafeStore } from "../census/secret-safe-store.js";
import { Progress, classList, clock, effectiveParallelism, thousands, throttleText } from "../census/progress.js";
import type { RunSettings, Session, SessionOptions, SessionOutcome } from "../census/session.js";
import { StoreRefused, StoreUnreachable, type RunRecord, type Store } from "../census/store.js";
import { redact } from "../secrets/redact.js";
import { shellQuote } from "../probe/repro.js";
import { FOUND_PROBLEMS, OK, signalExitCode, usageError } from "./exit.js";
import { cannotRead, cannotWrite, fileProblem } from "./file-errors.js";
import { parseHeaders } from "./headers.js";
import { MAX_TIMEOUT_MS, wholeNumber } from "./numbers.js";
import { writeErr, writeOut } from "./output.js";
import { closeOnWayOut, leaveNow, stoppable } from "./signals.js";
import { settlesWithin } from "../peer/within.js";

/** After Ctrl-C, how long past the probes' timeout their attempts may take to be stored. */
const STORE_GRACE_MS = 5_000;
/** Leaving at once (a second Ctrl-C), how long the database may take to count what is left. */
const LEAVE_MS = 2_000;

export interface CensusCliOptions {
  db?: string;
  concurrency?: string;
  perHost?: string;
  perHostGap?: string;
  timeout?: string;
  header?: string[];
  resume?: boolean;
  allowPrivate?: boolean;
  /** `--join` alone (the latest unfinished run) or `--join RUN`. */
  join?: boolean | string;
  lease?: string;
  /** Read the registry's API at this base URL instead of a targets file. */
  registry?: string;
  updatedSince?: string;
}

export async function runCensusCli(targetsFile: string | undefined, opts: CensusCliOptions): Promise<number> {
  const request = await parseRequest(targetsFile, opts);
  if (typeof request === "string") return usage(request);
  const read = targetsReader(request.headers);
  const list = await targetList(targetsFile, opts.registry, request, read);
  if (typeof list === "string") return usage(list);
  const opened = await openCensusStore(request.db, request.pickUp ? "existing" : "write");
  if (typeof opened === "string")
    return usage(
      request.pickUp && /^no census database/.test(opened) ? `nothing to ${request.pickUp.verb}: ${opened}` : opened,
    );
  const store = new SecretSafeStore(opened);
  try {
    const source = targetsFile ?? (opts.registry !== undefined ? redact(opts.registry) : undefined);
    const session = await openCensusSession(store, request, list, source, read);
    if (typeof session === "string") return usage(session);
    return await census({
      store,
      session,
      headers: request.headers,
      ...(list && !session.pickedUp ? { list } : {}),
      ...(request.leaseMs !== undefined ? { leaseMs: request.leaseMs } : {}),
      joining: request.pickUp?.verb === "join",
    });
  } catch (e) {
    if (!(e instanceof StoreUnreachable)) throw e;
    writeErr(`mcp-wire census: the database ${e.message}\n`);
    return FOUND_PROBLEMS;
  } finally {
    await store.close();
  }
}

/** What the command line asks of a census, checked. */
interface CensusRequest {
  headers: Record<string, string>;
  given: Partial<RunSettings>;
  db: string;
  /** `--resume` or `--join`: an unfinished run is picked up rather than started. */
  pickUp?: NonNullable<SessionOptions["pickUp"]>;
  leaseMs?: number;
  /** `--updated-since`, as the registry's API takes it. */
  updatedSince?: string;
}

/** The options checked against each other; or the one line saying what is wrong. */
async function parseRequest(targetsFile: string | undefined, opts: CensusCliOptions): Promise<CensusRequest | string> {
  const headers = parseHeaders(opts.header ?? []);
  if (typeof headers === "string") return headers;
  const given = runSettingsOf(opts);
  if (typeof given === "string") return given;
  const db = opts.db ?? DEFAULT_DB;
  const shared = sharedRunOf(opts, db);
  if (typeof shared === "string") return shared;
  const request: CensusRequest = { headers, given, db };
  if (opts.join !== undefined)
    request.pickUp = { verb: "join", ...(shared.runId !== undefined ? { runId: shared.runId } : {}) };
  else if (opts.resume === true) request.pickUp = { verb: "resume" };
  if (shared.leaseMs !== undefined) request.leaseMs = shared.leaseMs;
  const source = sourceProblem(targetsFile, opts, request.pickUp !== undefined);
  if (source) return source;
  if (opts.updatedSince !== undefined) {
    const { parseSince } = await import("../report/select.js");
    const parsed = parseSince(opts.updatedSince);
    if (typeof parsed !== "string") return parsed.error.replace("--since", "--updated-since");
    request.updatedSince = parsed;
  }
  return request;
}

/** The run's settings given as numbers, each within its bounds. */
function runSettingsOf(opts: CensusCliOptions): Partial<RunSettings> | string {
  const given: Partial<RunSettings> = {};
  for (const [key, flag, max, unit, hint] of [
    ["concurrency", "--concurrency", 10_000, "a number of probes", ""],
    ["perHost", "--per-host", 10_000, "a number of probes", ""],
    ["perHostGap", "--per-host-gap", MAX_TIMEOUT_MS, "milliseconds", "a day at most"],
    ["timeout", "--timeout", MAX_TIMEOUT_MS, "milliseconds", "a day at most"],
  ] as const) {
    const raw = opts[key];
    if (raw === undefined) continue;
    const n = wholeNumber(flag, raw, key === "perHostGap" ? 0 : 1, max, unit, hint);
    if (typeof n !== "number") return n.error;
    given[key] = n;
  }
  if (opts.allowPrivate) given.allowPrivate = true;
  return given;
}

/** `--join` and `--lease`, which only a run shared through PostgreSQL can take. */
function sharedRunOf(opts: CensusCliOptions, db: string): { runId?: number; leaseMs?: number } | string {
  const { join, lease } = opts;
  if (join === undefined && lease === undefined) return {};
  const flag = join !== undefined ? "--join" : "--lease";
  if (!isPostgresUrl(db))
    return `${flag} is for a run shared by several census processes: give --db postgres://… (an SQLite file serves one process)`;
  if (join !== undefined && opts.resume) return "--join and --resume both pick up an unfinished run: give one";
  const shared: { runId?: number; leaseMs?: number } = {};
  if (typeof join === "string") {
    const runId = Number(join);
    if (!Number.isSafeInteger(runId) || runId < 1)
      return `--join takes a run number (as \`report --json\` lists them), not ${JSON.stringify(join)}`;
    shared.runId = runId;
  }
  if (lease !== undefined) {
    const seconds = Number(lease);
    if (!Number.isFinite(seconds) || seconds < 1 || seconds > 86_400)
      return `--lease takes seconds from 1 to 86400, not ${JSON.stringify(lease)}`;
    shared.leaseMs = seconds * 1000;
  }
  return shared;
}

/** Why the targets' source cannot be told from the options, if it cannot. */
function sourceProblem(targetsFile: string | undefined, opts: CensusCliOptions, pickUp: boolean): string | undefined {
  if (opts.registry !== undefined && targetsFile !== undefined)
    return "give a targets file or --registry URL, not both";
  if (opts.updatedSince !== undefined && opts.registry === undefined)
    return "--updated-since reads the registry's API: give --registry URL too";
  if (!pickUp && targetsFile === undefined && opts.registry === undefined)
    return "census needs a targets file (URLs one a line, or a registry export), --registry URL, or --resume";
  return undefined;
}

/** Reads a targets file (also the one a picked-up run was started from): the list, or why not. */
function targetsReader(headers: Record<string, string>): (file: string) => Promise<TargetList | string> {
  return async (file) => {
    const { readTargets, TargetsError } = await import("../census/targets.js");
    try {
      return await readTargets(file, { headerNames: Object.keys(headers) });
    } catch (e) {
      if (e instanceof TargetsError) return e.cause !== undefined ? cannotRead(file, e.cause) : e.message;
      throw e;
    }
  };
}

/** The targets of a new run: the file's, else the registry's; none to pick up a run; or why not. */
async function targetList(
  targetsFile: string | undefined,
  registry: string | undefined,
  request: CensusRequest,
  read: (file: string) => Promise<TargetList | string>,
): Promise<TargetList | undefined | string> {
  if (targetsFile !== undefined) {
    const got = await read(targetsFile);
    if (typeof got === "string") return got;
    if (got.targets.length === 0)
      return `${targetsFile} lists no target (URLs one a line, or a registry export with remotes)`;
    await schemeHints(got);
    return got;
  }
  if (registry === undefined || request.pickUp) return undefined;
  return registryList(registry, request);
}

/** Every server with a remote the registry's API lists (updated since, if asked). */
async function registryList(registry: string, { headers, updatedSince }: CensusRequest): Promise<TargetList | string> {
  const { fetchRegistry } = await import("../census/registry.js");
  const { RegistryPagesReader, TargetsError } = await import("../census/targets.js");
  let list: TargetList;
  try {
    const reader = new RegistryPagesReader(redact(registry), { headerNames: Object.keys(headers) });
    await fetchRegistry(
      registry,
      (page, n) => reader.page(page, n),
      updatedSince !== undefined ? { updatedSince } : {},
    );
    list = reader.done();
  } catch (e) {
    if (e instanceof TargetsError) return redact(e.message);
    throw e;
  }
  if (list.targets.length === 0)
    return `${redact(registry)} lists no server with a remote${updatedSince !== undefined ? " updated since then" : ""}`;
  return list;
}

/** A new run started in the store, or the unfinished one picked up; or why not, in one line. */
async function openCensusSession(
  store: SecretSafeStore,
  request: CensusRequest,
  list: TargetList | undefined,
  source: string | undefined,
  read: (file: string) => Promise<TargetList | string>,
): Promise<Session | string> {
  const { openSession, SessionRefused } = await import("../census/session.js");
  try {
    return await openSession(store, {
      given: request.given,
      headers: request.headers,
      ...(list ? { list } : {}),
      ...(source !== undefined ? { source } : {}),
      ...(request.pickUp ? { pickUp: request.pickUp } : {}),
      reread: read,
    });
  } catch (e) {
    if (e instanceof SessionRefused) return e.message;
    throw e;
  }
}

/** The store `--db` names, or one line saying why it cannot be used. */
async function openCensusStore(db: string, mode: OpenMode): Promise<Store | string> {
  try {
    return await openStore(db, mode);
  } catch (e) {
    if (e instanceof StoreRefused) return e.message;
    const errno = e as NodeJS.ErrnoException;
    // the file, or the folder its -wal and -shm go in, cannot be written
    if (typeof errno.code === "string" && /^E[A-Z]+$/.test(errno.code) && errno.path !== undefined) {
      if (!["EACCES", "EPERM", "EROFS"].includes(errno.code)) return cannotWrite(db, e);
      return `cannot write ${db}: ${errno.path === db ? "the file" : `the folder ${errno.path}`} is not writable (${fileProblem(e)})`;
    }
    return `cannot open ${redact(db)}: ${redact(e instanceof Error ? e.message : String(e))}`;
  }
}

/** What the census printing needs: the session, and what the command line gave. */
interface CensusView {
  store: SecretSafeStore;
  session: Session;
  headers: Record<string, string>;
  /** The targets list of a new run, for the opening line. */
  list?: TargetList;
  leaseMs?: number;
  joining: boolean;
}

/** Runs the session with a progress bar, Ctrl-C handling and the closing lines. */
async function census(view: CensusView): Promise<number> {
  const { hostOf } = await import("../census/host-of.js");
  const { run, targets, settings } = view.session;
  // where the targets left are decides how many probes can really run at once
  const hostByTarget = new Map(targets.filter((t) => !t.invalid).map((t) => [t.target, hostOf(t)]));
  const hosts = new Map<string, number>();
  for (const host of hostByTarget.values()) hosts.set(host, (hosts.get(host) ?? 0) + 1);
  const lanes = { hosts, perHost: settings.perHost, concurrency: settings.concurrency };
  const queued = [...hosts.values()].some((left) => left > settings.perHost);
  const pace = { parallel: effectiveParallelism(lanes), hosts: hosts.size, queued };
  writeErr(`census: ${intro(run, targets.length, view.list, settings, view.joining, pace)}\n`);
  if (settings.headers > 0 && targets.some((t) => t.untrusted)) {
    writeErr(
      `census: warning: --header is sent to every target, including the ${thousands(targets.filter((t) => t.untrusted).length)} listed by a registry\n`,
    );
  }
  // a shared run's other workers take targets this process cannot see go: its rate alone says more
  const done = run.targets - targets.length;
  const progress = new Progress({ total: run.targets, done, ...(view.store.share ? {} : { lanes }) });
  return new CensusRun(view, hostByTarget, progress).run();
}

/**
 * A session under way on the terminal: its progress bar; a first stop signal lets the probes in
 * flight end and be stored, within a deadline; leaving at once still says how to resume; at the
 * end, the line saying what it found.
 */
class CensusRun {
  private readonly stop = new AbortController();
  private stoppedBy: NodeJS.Signals = "SIGINT";
  private leaving: ReturnType<typeof setTimeout> | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly view: CensusView,
    private readonly hostByTarget: ReadonlyMap<string, string>,
    private readonly progress: Progress,
  ) {}

  async run(): Promise<number> {
    const unregister = closeOnWayOut(() => this.leaveAtOnce());
    try {
      return await stoppable(
        (signal) => this.stopping(signal),
        () => this.probe(),
      );
    } finally {
      clearTimeout(this.leaving);
      unregister();
      this.progress.stop();
    }
  }

  /**
   * Leaving at once (a second signal, or the first one's wait run out): every stored attempt is a
   * committed transaction, and nothing is being written between two events, so only the probes
   * in flight are lost, which a resume calls again.
   */
  private async leaveAtOnce(): Promise<void> {
    const { store, session } = this.view;
    this.progress.stop();
    let pending: number | undefined;
    // a database that no longer answers gets a moment, not the rest of its deadline
    await settlesWithin(
      (async () => {
        const left = (await store.pendingTargets(session.run.id)).length;
        await store.close();
        pending = left;
      })(),
      LEAVE_MS,
    );
    // without the store's count, the hint counts this session's targets
    writeErr(resumeHint(session.run.id, pending ?? session.targets.length, store.where, session.settings));
  }

  private stopping(signal: NodeJS.Signals): void {
    this.stoppedBy = signal;
    this.stop.abort();
    // the promise holds whatever the database does: a frozen one cannot keep the census waiting
    const most = this.view.session.settings.timeout + STORE_GRACE_MS;
    this.progress.note(
      `census: stopping: no new probes; waiting for those in flight to end and be stored (at most ${clock(most / 1000)}). Ctrl-C again to leave them.`,
    );
    this.leaving = setTimeout(() => void leaveNow(signal), most);
  }

  private async probe(): Promise<number> {
    const { store, session, headers, leaseMs } = this.view;
    const { runSession } = await import("../census/session.js");
    // a shared run's bar shows every worker's attempts
    const outcome = await runSession(store, session, {
      headers,
      signal: this.stop.signal,
      ...(leaseMs !== undefined ? { leaseMs } : {}),
      onAttempt: (a) => {
        const host = this.hostByTarget.get(a.target);
        this.progress.add(a.class, host === undefined ? undefined : { host, ms: a.elapsedMs });
      },
      onAdmission: (a) => this.progress.throttled(throttleText(a)),
      onProgress: (done, classes) => this.progress.sync(done, classes),
    }).catch((e: unknown) => {
      if (!(e instanceof StoreUnreachable)) throw e;
      this.progress.stop();
      writeErr(unreachableHint(e, store.where, session.settings));
      return undefined;
    });
    this.progress.stop();
    if (outcome === undefined) return FOUND_PROBLEMS;
    if (outcome.stopped) {
      writeErr(resumeHint(session.run.id, outcome.pending, store.where, session.settings));
      return signalExitCode(this.stoppedBy);
    }
    await writeOut(await this.summary(outcome));
    return OK;
  }

  /** What the run found, how fast, and where it is stored. */
  private async summary(outcome: SessionOutcome): Promise<string> {
    const { store, session } = this.view;
    const { run, targets } = session;
    const dbFile = store.where;
    const seconds = (Date.now() - this.started) / 1000;
    const classes = new Map(
      (await store.aggregate({ runIds: [run.id] })).classes.reduce(
        (m, c) => m.set(c.class, (m.get(c.class) ?? 0) + c.count),
        new Map<string, number>(),
      ),
    );
    const done = run.targets - targets.length;
    return (
      `Run ${run.id}: ${thousands(run.targets)} target${run.targets === 1 ? "" : "s"}${
        store.share
          ? ` (${thousands(outcome.recorded)} by this process)`
          : done > 0
            ? ` (${thousands(targets.length)} in this session)`
            : ""
      } in ${clock(seconds)}` +
      `${outcome.recorded > 0 && seconds > 0 ? `, ${(outcome.recorded / seconds).toFixed(1)}/s` : ""}: ${classList(classes) || "nothing to do"}. ` +
      `Stored in ${dbFile}; mcp-wire report${dbFile === DEFAULT_DB ? "" : ` --db ${shellQuote(dbFile)}`} says what it means.\n`
    );
  }
}

/** How many probes can really run at once, over how many hosts, and whether some host's targets wait their turn. */
interface Pace {
  parallel: number;
  hosts: number;
  queued: boolean;
}

function intro(
  run: RunRecord,
  todo: number,
  list: TargetList | undefined,
  s: RunSettings,
  joining: boolean,
  { parallel, hosts, queued }: Pace,
): string {
  const parts: string[] = [];
  if (list) {
    const extra: string[] = [];
    if (list.notLatest > 0)
      extra.push(`${thousands(list.notLatest)} older version${list.notLatest === 1 ? "" : "s"} left out`);
    if (list.duplicates > 0)
      extra.push(`${thousands(list.duplicates)} repeated URL${list.duplicates === 1 ? "" : "s"} probed once`);
    if (list.inactive) extra.push(`${thousands(list.inactive)} deprecated or deleted left out`);
    if (list.noRemotes > 0)
      extra.push(
        `${thousands(list.noRemotes)} entr${list.noRemotes === 1 ? "y" : "ies"} without remotes (packages run locally) left out`,
      );
    const { comment, blank } = list.skippedLines;
    const skipped = [
      comment > 0 ? `${thousands(comment)} comment line${comment === 1 ? "" : "s"}` : "",
      blank > 0 ? `${thousands(blank)} blank line${blank === 1 ? "" : "s"}` : "",
    ].filter((w) => w !== "");
    if (skipped.length > 0) extra.push(`${skipped.join(" and ")} skipped`);
    parts.push(
      `${thousands(run.targets)} target${run.targets === 1 ? "" : "s"} from ${run.source} (${list.format === "registry" ? "registry export" : "list of URLs"}${extra.length ? `; ${extra.join(", ")}` : ""}), run ${run.id}`,
    );
  } else {
    parts.push(
      `${joining ? "joining" : "resuming"} run ${run.id} over ${run.source}: ${thousands(todo)} of ${thousands(run.targets)} targets left`,
    );
  }
  const perHost = `${s.perHost} per host${s.perHostGap > 0 ? ` at least ${s.perHostGap} ms apart` : ""}`;
  // the concurrency asked for is not what runs when the targets sit on few hosts
  const pace =
    parallel > 0 && parallel < s.concurrency
      ? queued
        ? `${thousands(parallel)} at a time (${thousands(hosts)} host${hosts === 1 ? "" : "s"}, ${perHost}; --concurrency ${s.concurrency} is not reached)`
        : `${thousands(parallel)} at a time (every target at once, ${perHost})`
      : `${s.concurrency} at a time, ${perHost}`;
  parts.push(`${pace}, ${s.timeout} ms each`);
  return parts.join("; ");
}

function resumeCommand(dbFile: string, s: RunSettings): string {
  const command = ["mcp-wire", "census", ...(dbFile === DEFAULT_DB ? [] : ["--db", shellQuote(dbFile)]), "--resume"];
  if (s.headers > 0) command.push(...Array<string>(s.headers).fill("--header '…'"));
  return command.join(" ");
}

function resumeHint(runId: number, pending: number, dbFile: string, s: RunSettings): string {
  return (
    `\ncensus: interrupted: run ${runId} has ${thousands(pending)} target${pending === 1 ? "" : "s"} left; every finished attempt is saved in ${dbFile}.\n` +
    `Resume with: ${resumeCommand(dbFile, s)}\n`
  );
}

function unreachableHint(e: StoreUnreachable, dbFile: string, s: RunSettings): string {
  return (
    `\ncensus: stopped: the database ${e.message}. Nothing finished was lost: every attempt stored before then is kept, ` +
    `and the probes whose attempts were not stored are done again by a resume.\n` +
    `When the database answers again, resume with: ${resumeCommand(dbFile, s)}\n`
  );
}

function usage(message: string): number {
  return usageError("census", message);
}

/** How many URLs without a scheme are named with the one they likely meant; the rest are counted. */
const HINTS_SHOWN = 3;

/**
 * Lines of a targets file that name a server without `http://` or `https://` are recorded as
 * `bad_url` (the census calls nothing it cannot read as a URL); the person is told at once what
 * they likely meant, as `probe` tells them, rather than finding 0 % uptime in the report.
 */
async function schemeHints(list: TargetList): Promise<void> {
  const { serverUrl } = await import("./target-url.js");
  const hints: string[] = [];
  for (const t of list.targets) {
    if (t.invalid !== "bad_url") continue;
    const said = serverUrl(t.target);
    if (!(said instanceof URL) && said.error.includes("did you mean")) hints.push(said.error);
  }
  for (const hint of hints.slice(0, HINTS_SHOWN))
    writeErr(`census: warning: ${redact(hint)}; it is recorded as bad_url and not called\n`);
  if (hints.length > HINTS_SHOWN)
    writeErr(`census: warning: ${thousands(hints.length - HINTS_SHOWN)} more lines without http:// or https://\n`);
}
