/**
 * `check`: past the door. Opens the server in every revision it speaks (each in a session of its
 * own), makes a read-only pass in each, validates every message the server sent against that
 * revision's schema, and checks what the schemas cannot say (docs/check.md). Never calls a tool,
 * reads a resource or gets a prompt the user did not name. A target that cannot be opened at all
 * is handed to `probe`, whose verdict (and sign-in walk) says why.
 */
import { connectHttp } from "../mcp/connect-http.js";
import type { Transport } from "../peer/transport.js";
import { probeHttp } from "../probe/probe.js";
import { RULES, type Revision } from "../rules/revisions.js";
import type { ExchangeRecord } from "../transport/http/client.js";
import { HttpError } from "../transport/http/error.js";
import {
  endedSessionCheck,
  judgeExchanges,
  legacyHttpChecks,
  modernHttpChecks,
  modernOnlyChecks,
  type RawOptions,
} from "./http-checks.js";
import { settlesWithin } from "../peer/within.js";
import { Run, clientOptions, discoverRefused, outcomeOf, type Attempt, type CheckOptions } from "./run.js";
import type { CheckReport } from "./types.js";

export type { CheckOptions, CheckWait } from "./run.js";
export { checkStdio } from "./check-stdio.js";

/** One HTTP opening of `revision`, seen through the attempt's recorder, with what it exchanged. */
interface HttpOpening {
  attempt: Attempt;
  exchanges: ExchangeRecord[];
  channel: Transport | undefined;
  transport: string | undefined;
  /** The opening failed with this (the attempt's outcome says how). */
  error?: unknown;
}

async function openHttp(
  url: string,
  run: Run,
  revision: Revision,
  options: CheckOptions,
  discover = true,
): Promise<HttpOpening> {
  const attempt = run.attempt(revision);
  const opening: HttpOpening = { attempt, exchanges: [], channel: undefined, transport: undefined };
  try {
    const connection = await connectHttp(url, {
      ...clientOptions(run, revision, attempt),
      fresh: true,
      // a 401 is probe's to walk, under its guard
      readSignIn: false,
      ...(discover ? {} : { discover: false, transport: "streamable-http" as const }),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      onExchange: (x) => {
        if (opening.exchanges.length < 1000) opening.exchanges.push(x);
      },
      wrap: (t) => {
        opening.channel = t;
        return attempt.recorder.wrap(t);
      },
    });
    attempt.client = connection.client;
    opening.transport = connection.transport;
    attempt.outcome = "ok";
  } catch (e) {
    attempt.outcome = outcomeOf(e);
    opening.error = e;
  }
  return opening;
}

/**
 * A modern revision whose `server/discover` was refused, opened again without it: the opening to
 * check when the server answers as that revision, else undefined (the refusal stands).
 */
async function withoutDiscover(
  url: string,
  run: Run,
  revision: Revision,
  options: CheckOptions,
): Promise<HttpOpening | undefined> {
  const opening = await openHttp(url, run, revision, options, false);
  const client = opening.attempt.client;
  if (client && (await run.answersWithoutDiscover(client, revision))) return opening;
  if (client) await settlesWithin(client.close(), 2000);
  return undefined;
}

export async function checkHttp(url: string, options: CheckOptions = {}): Promise<CheckReport> {
  const run = new Run(url, options, false);
  const raw: RawOptions = {
    headers: options.headers ?? {},
    timeout: run.timeout,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
  let modernOk: Revision | undefined;
  let legacyStreamable = false;
  for (const revision of run.ladder()) {
    const modern = RULES[revision].era === "modern";
    let opening = await openHttp(url, run, revision, options);
    const e = opening.error;
    // nothing answers, or nothing answers without credentials: no other revision will fare better
    if (e instanceof HttpError && (e.status === undefined || e.status === 401 || e.status === 403)) {
      run.revisions[revision] = opening.attempt.outcome;
      for (const r of run.ladder()) run.revisions[r] ??= "skipped";
      break;
    }
    // the refusals the transport defines are asked with server/discover: not of a server that refuses it
    let discovered = true;
    if (modern && e !== undefined && discoverRefused(opening.attempt, e)) {
      const bare = await withoutDiscover(url, run, revision, options);
      if (bare) [opening, discovered] = [bare, false];
    }
    const { attempt, exchanges, transport } = opening;
    run.revisions[revision] = attempt.outcome;
    const client = attempt.client;
    if (!client) continue;
    const session = (opening.channel as { sessionId?: string } | undefined)?.sessionId;
    try {
      await run.pass(client, revision, attempt);
      if (transport === "streamable-http") {
        judgeExchanges(exchanges, revision, run.findings, modern);
        if (modern) {
          modernOk = revision;
          if (discovered) await modernHttpChecks(url, revision, run.findings, raw);
        } else if (RULES[revision].http.transport === "streamable-http") {
          // 2024-11-05 had no Streamable HTTP: a server that serves it there has none of its rules to keep
          legacyStreamable = true;
          await legacyHttpChecks(url, revision, session, run.findings, raw);
          await endedSessionCheck(url, revision, session, run.findings, raw);
        }
      }
    } finally {
      await settlesWithin(client.close(), 2000);
    }
  }
  if (modernOk && !legacyStreamable) await modernOnlyChecks(url, modernOk, run.findings, raw);
  const anyOk = Object.values(run.revisions).includes("ok");
  const verdict = anyOk
    ? undefined
    : await probeHttp(url, {
        timeout: run.timeout,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.lookup ? { lookup: options.lookup } : {}),
      });
  return run.report(run.unchecked(verdict));
}
