/**
 * What a census found, told as a person would write it (docs/report.md): "Called 1,100 servers
 * once each. 6 rejected the opening request with a JSON-RPC error: 3 sent -32001 (legacy range),
 * all refusing for lack of a key …", and per target "82 attempts between 20 July and 5 August:
 * 4 protocol errors, 3 web pages." Everything here reads the store's aggregates, never the
 * attempts themselves, so a million attempts tell their story as fast as ten.
 */
import type { Aggregates } from "../census/store.js";
import { describeError } from "../rules/error-codes.js";
import { LATEST_REVISION } from "../rules/revisions.js";
import { HISTORY_KINDS, PROTOCOL_ERROR_CLASSES, detailBreakdown, rangeWords } from "./vocabulary.js";
import { signinSentences } from "./signin.js";
import { Count, count, counted, digits, list, moment, noun, quote, span } from "./words.js";

type PerTarget = Aggregates["perTarget"][number];

/** A title for the selection: which run, or how many, and when. */
export function heading(agg: Aggregates): string {
  const runs = agg.runs;
  if (runs.length === 1) {
    const r = runs[0]!;
    const start = moment(r.startedAt);
    const end = r.finishedAt ? moment(r.finishedAt) : undefined;
    const when =
      end === undefined
        ? `started ${start}, not finished`
        : end === start
          ? start
          : sameDay(r.startedAt, r.finishedAt!)
            ? `${start.slice(0, -4)}–${end.slice(-9)}`
            : `${start} to ${end}`;
    return `Census run ${r.id} (${r.source}), ${when}`;
  }
  if (runs.length === 0) return "No census runs selected";
  return `${digits(runs.length)} census runs ${span(runs[0]!.startedAt, runs.at(-1)!.startedAt)}`;
}

function sameDay(a: string, b: string): boolean {
  return a.slice(0, 10) === b.slice(0, 10);
}

/**
 * The findings as a paragraph of sentences. Each attempt once: the servers are the subject
 * ("Called 1,100 servers once each."). Several attempts per server: the attempts are, and the
 * protocol errors lead, as docs/report.md shows ("Across 82 attempts between … we recorded 4
 * protocol errors").
 */
export function summary(agg: Aggregates): string[] {
  return paragraphs(agg).flat();
}

/**
 * The same sentences in paragraphs: what was called and what answered; the refusals; what
 * answered but not in MCP; what failed before any answer.
 */
export function paragraphs(agg: Aggregates): string[][] {
  const total = agg.attempts;
  if (total === 0) return [["No attempts were recorded in the selection."]];
  const of = (cls: string) => agg.classes.filter((c) => c.class === cls).reduce((n, c) => n + c.count, 0);
  const details = (classes: readonly string[]) =>
    merge(agg.classes.filter((c) => classes.includes(c.class)).map((c) => ({ detail: c.detail, count: c.count })));
  const once = agg.attempts === agg.targets;

  const protocol = PROTOCOL_ERROR_CLASSES.reduce((n, c) => n + of(c), 0);
  const protocolPhrase =
    protocol === 0
      ? "no protocol errors"
      : `${counted(protocol, "protocol error")}, meaning the address answered and spoke something, but not MCP: ${detailBreakdown(details(PROTOCOL_ERROR_CLASSES))}`;
  const webPages = (separate: boolean) => {
    const n = of("web_page");
    if (n === 0) return [];
    const who = separate ? `A separate ${count(n)}` : Count(n);
    return [
      `${who} answered with a web page rather than JSON at all, which is what a documentation URL does when it is mistaken for an endpoint.`,
    ];
  };
  const opening = openingErrors(agg);
  const auth = authByHttp(agg);
  const rest = [
    ...httpErrors(details(["http_error"])),
    ...timeouts(details(["timeout"])),
    ...plainCount(of("unreachable"), ["could not be reached", "could not be reached"], details(["unreachable"])),
  ];
  const invalid = of("invalid_target");

  if (once) {
    const called = agg.targets - invalid;
    const lead =
      called === 0
        ? "Called no server."
        : called === 1
          ? "Called one server once."
          : `Called ${digits(called)} servers once each.`;
    return nonEmpty([
      [lead, ...answered(agg, of("ok"), called, "")],
      [...opening, ...auth, ...signinSentences(agg)],
      [...(protocol > 0 ? [`We recorded ${protocolPhrase}.`] : []), ...webPages(protocol > 0)],
      [
        ...rest,
        ...plainCount(
          invalid,
          called > 0 ? ["more was not called", "more were not called"] : ["was not called", "were not called"],
          details(["invalid_target"]),
        ),
      ],
    ]);
  }
  const where = agg.targets === 1 ? "" : ` at ${digits(agg.targets)} servers`;
  return nonEmpty([
    [
      `Across ${digits(total)} attempts${where} ${span(agg.firstAt!, agg.lastAt!)} we recorded ${protocolPhrase}.`,
      ...webPages(protocol > 0),
    ],
    [...opening, ...auth, ...signinSentences(agg)],
    [...rest, ...plainCount(invalid, ["was not called", "were not called"], details(["invalid_target"]))],
    answered(agg, of("ok"), total, of("ok") < total ? "The other " : ""),
  ]);
}

function nonEmpty(paragraphs: string[][]): string[][] {
  return paragraphs.filter((p) => p.length > 0);
}

/** Detail rows of several classes, summed per detail, most frequent first. */
function merge(rows: { detail: string; count: number }[]): { detail: string; count: number }[] {
  const by = new Map<string, number>();
  for (const r of rows) by.set(r.detail, (by.get(r.detail) ?? 0) + r.count);
  return [...by]
    .map(([detail, n]) => ({ detail, count: n }))
    .sort((a, b) => b.count - a.count || a.detail.localeCompare(b.detail));
}

/** "1,023 answered and listed their tools: 950 on 2026-07-28 (stateless), 73 on 2025-06-18." */
function answered(agg: Aggregates, ok: number, total: number, prefix: string): string[] {
  if (total === 0) return [];
  if (ok === 0) return [total === 1 ? "It did not answer with its tools." : "None answered with its tools."];
  const all = ok === total && total > 1;
  const who = prefix
    ? `${prefix}${count(ok)}`
    : all
      ? ok === 2
        ? "Both"
        : agg.attempts === agg.targets
          ? "All"
          : `All ${digits(ok)}`
      : Count(ok);
  const revisions = agg.revisions
    .filter((r) => r.count > 0)
    .sort((a, b) => b.count - a.count || (b.revision ?? "").localeCompare(a.revision ?? ""))
    .map((r) => ({ spoken: spoken(r.era, r.revision), count: r.count }));
  const their = ok === 1 ? "its" : "their";
  if (revisions.length === 0) return [`${who} answered and listed ${their} tools.`];
  if (revisions.length === 1) {
    const each = ok === 1 || all ? "" : ok === 2 ? "both " : "all ";
    return [`${who} answered and listed ${their} tools, ${each}on ${revisions[0]!.spoken}.`];
  }
  return [
    `${who} answered and listed ${their} tools: ${list(revisions.map((r) => `${digits(r.count)} on ${r.spoken}`))}.`,
  ];
}

/** A revision as the report speaks it: "2026-07-28 (stateless)", "2025-06-18". */
export function spoken(era: string | null, revision: string | null): string {
  if (revision === null) return era === "modern" ? "the stateless protocol, revision unknown" : "an unknown revision";
  return era === "modern" ? `${revision} (stateless)` : revision;
}

interface CodeGroup {
  code: number;
  range: string | null;
  count: number;
  keyRefusals: number;
  keyMessages: string[];
  otherMessages: string[];
}

/**
 * The JSON-RPC errors that answered the opening request, by code: those that refuse for lack of
 * a key are counted here too (the probe's class for them is auth_required), since that is what
 * the server sent, and the sentence says why it should have been a 401.
 */
function openingErrors(agg: Aggregates): string[] {
  const groups = new Map<number, CodeGroup>();
  for (const e of agg.rpcErrors) {
    const key = e.class === "auth_required" && e.detail === "rpc_error_instead_of_401";
    if (!key && e.class !== "rpc_error") continue;
    let g = groups.get(e.code);
    if (!g)
      groups.set(
        e.code,
        (g = { code: e.code, range: e.range, count: 0, keyRefusals: 0, keyMessages: [], otherMessages: [] }),
      );
    g.count += e.count;
    if (key) g.keyRefusals += e.count;
    const into = key ? g.keyMessages : g.otherMessages;
    for (const m of e.messages) if (!into.includes(m) && telling(e.code, m)) into.push(m);
  }
  if (groups.size === 0) return [];
  const total = [...groups.values()].reduce((n, g) => n + g.count, 0);
  const ordered = [...groups.values()].sort((a, b) => b.count - a.count || b.code - a.code);

  if (ordered.length === 1) {
    const g = ordered[0]!;
    return [`${Count(total)} rejected the opening request with JSON-RPC error ${g.code}${codeNotes(g, "all")}.`];
  }
  const singles = ordered.filter((g) => g.count === 1 && g.keyRefusals === 0);
  const parts = ordered
    .filter((g) => !singles.includes(g))
    .map((g) => `${count(g.count)} sent ${g.code}${codeNotes(g, g.count === 2 ? "both" : "all")}`);
  if (singles.length === 1) parts.push(`one sent ${singles[0]!.code}${codeNotes(singles[0]!, "all")}`);
  else if (singles.length > 1)
    parts.push(`one each sent ${list(singles.map((g) => `${g.code}${codeNotes(g, "all")}`))}`);
  return [`${Count(total)} rejected the opening request with a JSON-RPC error: ${parts.join("; ")}.`];
}

/** What to say after a code: its range unless standard, the key refusals, what the messages say. */
function codeNotes(g: CodeGroup, allWord: "all" | "both"): string {
  const range = g.range && g.range !== "standard" ? rangeWords(g.range) : "";
  const others = g.count - g.keyRefusals;
  if (g.keyRefusals === 0) {
    const said = quoted(g.otherMessages);
    return range || said ? ` (${[range, said].filter(Boolean).join(": ")})` : "";
  }
  const who = others === 0 ? (g.count === 1 ? "" : `${allWord} `) : `${count(g.keyRefusals)} of them `;
  let s = `${range ? ` (${range})` : ""}, ${who}refusing for lack of a key${parenthesized(g.keyMessages)}, which the authorization spec expects as an HTTP 401 instead`;
  if (others > 0) s += `, and ${count(others)} saying something else${parenthesized(g.otherMessages)}`;
  return s;
}

/** Up to three messages, quoted: `"invalid api key", "Unauthorized"`. */
function quoted(messages: readonly string[]): string {
  return messages.length === 0
    ? ""
    : `${messages
        .slice(0, 3)
        .map((m) => quote(m))
        .join(", ")}${messages.length > 3 ? ", …" : ""}`;
}

function parenthesized(messages: readonly string[]): string {
  return messages.length === 0 ? "" : ` (${quoted(messages)})`;
}

/** A message that only repeats the code's standard name ("Internal error") tells nothing more. */
function telling(code: number, message: string): boolean {
  const plain = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  const m = plain(message);
  return m !== "" && m !== plain(describeError(code, LATEST_REVISION).name);
}

/** Refusals the way the authorization spec wants them: an HTTP 401 or 403. */
function authByHttp(agg: Aggregates): string[] {
  const rows = agg.classes.filter((c) => c.class === "auth_required" && c.detail !== "rpc_error_instead_of_401");
  const n = rows.reduce((s, r) => s + r.count, 0);
  if (n === 0) return [];
  const statuses = [...new Set(rows.map((r) => r.detail.replace(/^http_/, "")))].sort();
  return [`${Count(n)} asked for a key with HTTP ${list(statuses, "or")}, as the authorization spec expects.`];
}

function httpErrors(details: readonly { detail: string; count: number }[]): string[] {
  const n = details.reduce((s, d) => s + d.count, 0);
  if (n === 0) return [];
  const words = details.map((d) => {
    const status = /^http_(\d+)$/.exec(d.detail)?.[1];
    const what = status
      ? `HTTP ${status}`
      : d.detail.startsWith("redirect_")
        ? "a redirect to another origin"
        : d.detail;
    return d.count === 1 || details.length === 1 ? what : `${what} (${digits(d.count)})`;
  });
  return [`${Count(n)} failed with an HTTP error and no JSON-RPC answer: ${list(words)}.`];
}

function timeouts(details: readonly { detail: string; count: number }[]): string[] {
  const n = details.reduce((s, d) => s + d.count, 0);
  if (n === 0) return [];
  if (details.length === 1) return [`${Count(n)} did not answer in time, stalling at ${details[0]!.detail}.`];
  return [`${Count(n)} did not answer in time: ${list(details.map((d) => `${count(d.count)} at ${d.detail}`))}.`];
}

/** `verb` as [one, many]: "one was not called", "2 were not called". */
function plainCount(
  n: number,
  verb: readonly [string, string],
  details: readonly { detail: string; count: number }[],
): string[] {
  if (n === 0) return [];
  return [`${Count(n)} ${n === 1 ? verb[0] : verb[1]}: ${detailBreakdown(details)}.`];
}

/**
 * A target's history: "82 attempts between 20 July and 5 August: 4 protocol errors, 3 web
 * pages." The year is left to the summary unless the history crosses one.
 */
export function history(t: PerTarget): string {
  const failures = HISTORY_KINDS.map((k) => ({ k, n: k.classes.reduce((s, c) => s + (t.classes[c] ?? 0), 0) }))
    .filter(({ n }) => n > 0)
    .map(({ k, n }) => `${digits(n)} ${n === 1 ? k.one : k.many}`);
  const when = span(t.firstAt, t.lastAt, false);
  const head = `${digits(t.attempts)} ${noun(t.attempts, "attempt")} ${when}`;
  if (failures.length === 0) return `${head}: ${t.attempts === 1 ? "it answered" : "all answered"} and listed tools.`;
  return `${head}: ${failures.join(", ")}.`;
}
