/**
 * The census's sign-in findings, in words, as data and as a chart: of the servers that ask for
 * sign-in, how many a standard OAuth client can sign in to, how many need a client registered
 * by hand, and where the broken ones break ("Of 312 servers that ask for sign-in, 201 are ready,
 * 38 need a client registered by hand, 61 are broken: 24 publish no resource metadata, …"), and
 * per target the chain as the probe walked it.
 */
import type { AuthResult } from "../auth/types.js";
import type { Aggregates, TargetSummary } from "../census/store.js";
import { barChart } from "./charts.js";
import { esc } from "./escape.js";
import { Count, count, digits, list } from "./words.js";

/** What the broken ones do, by the first error of their chain ("24 publish no resource metadata"). */
const BROKEN_WORDS: Record<string, [one: string, many: string]> = {
  no_challenge: ["sends a 401 without a Bearer challenge", "send a 401 without a Bearer challenge"],
  challenge_without_resource_metadata: [
    "leaves resource_metadata out of its challenge",
    "leave resource_metadata out of their challenge",
  ],
  auth_status_not_401: [
    "refuses with a JSON-RPC error or another status instead of 401",
    "refuse with a JSON-RPC error or another status instead of 401",
  ],
  resource_metadata_not_found: ["publishes no resource metadata", "publish no resource metadata"],
  resource_metadata_invalid: ["publishes unusable resource metadata", "publish unusable resource metadata"],
  resource_mismatch: [
    "names another resource in its resource metadata",
    "name another resource in their resource metadata",
  ],
  authorization_server_metadata_not_found: [
    "names an authorization server that publishes no metadata",
    "name an authorization server that publishes no metadata",
  ],
  authorization_server_metadata_invalid: [
    "has unusable authorization server metadata",
    "have unusable authorization server metadata",
  ],
  issuer_mismatch: [
    "has an issuer that differs from the authorization server it lists",
    "have an issuer that differs from the authorization server they list",
  ],
  pkce_s256_missing: [
    "has an authorization server that does not list PKCE S256",
    "have an authorization server that does not list PKCE S256",
  ],
  insecure_endpoint: ["sends sign-in over plain http", "send sign-in over plain http"],
};

const VERDICT_LABEL: Record<string, string> = {
  ready: "ready",
  manual_registration: "client registered by hand",
  broken: "broken",
  not_oauth: "a key, not OAuth",
};

type Signin = Aggregates["signin"];

function of(s: Signin, verdict: string): number {
  return s.verdicts.find((v) => v.verdict === verdict)?.count ?? 0;
}

/**
 * The sentences of the sign-in paragraph (none when no server asked for sign-in over HTTP). They
 * count servers, each once: every one of them was also told among the refusals before (a 401, or
 * a JSON-RPC error that should have been one), so these sentences stand on their own and never
 * say "more".
 */
export function signinSentences(agg: Aggregates): string[] {
  const s = agg.signin;
  if (s.asked === 0) return [];
  const keys = of(s, "not_oauth");
  const oauth = s.asked - keys;
  const sentences: string[] = [];
  const keyWords = "(no challenge and no metadata anywhere)";
  if (oauth === 0) {
    const who =
      s.asked === 1
        ? "The one server that asks for sign-in wants"
        : `${s.asked === 2 ? "Both" : `All ${digits(s.asked)}`} servers that ask for sign-in want`;
    return [`${who} a key rather than OAuth ${keyWords}.`];
  }
  if (keys > 0) {
    sentences.push(
      `Of ${counted(s.asked, "server")} that ask for sign-in, ${digits(oauth)} ${oauth === 1 ? "uses" : "use"} OAuth and ${count(keys)} ${keys === 1 ? "asks" : "ask"} for a key instead ${keyWords}.`,
    );
  }
  sentences.push(oauthSentence(s, oauth, keys > 0));
  if (s.lenientOk > 0) {
    sentences.push(
      `${Count(s.lenientOk)} of them a strict client cannot sign in to still ${s.lenientOk === 1 ? "works" : "work"} with the TypeScript SDK, which tolerates what the specification does not.`,
    );
  }
  return sentences;
}

/** How the servers that use OAuth fare: "Of 7 servers that ask for sign-in with OAuth, 2 are ready, …". */
function oauthSentence(s: Signin, oauth: number, afterKeys: boolean): string {
  const ready = of(s, "ready");
  const manual = of(s, "manual_registration");
  const broken = of(s, "broken");
  const why = (one: boolean) =>
    s.broken.map((b) =>
      one
        ? (BROKEN_WORDS[b.code]?.[0] ?? `breaks at ${b.code}`)
        : `${digits(b.count)} ${BROKEN_WORDS[b.code]?.[b.count === 1 ? 0 : 1] ?? `break at ${b.code}`}`,
    );
  if (oauth === 1) {
    const who = afterKeys ? "The one that uses OAuth" : "The one server that asks for sign-in with OAuth";
    if (ready === 1) return `${who} is ready.`;
    if (manual === 1) return `${who} needs a client registered by hand.`;
    if (broken === 1 && s.broken.length > 0) return `${who} is broken: it ${why(true).join(", ")}.`;
    return `${who} is broken.`;
  }
  const parts: string[] = [];
  parts.push(ready === 0 ? "none is ready" : `${digits(ready)} ${ready === 1 ? "is" : "are"} ready`);
  if (manual > 0) parts.push(`${digits(manual)} need${manual === 1 ? "s" : ""} a client registered by hand`);
  if (broken > 0)
    parts.push(
      `${digits(broken)} ${broken === 1 ? "is" : "are"} broken${s.broken.length > 0 ? `: ${why(false).join(", ")}` : ""}`,
    );
  const who = afterKeys
    ? `Of the ${digits(oauth)} that use OAuth`
    : `Of ${counted(oauth, "server")} that ask for sign-in with OAuth`;
  return `${who}, ${list(parts)}.`;
}

function counted(n: number, noun: string): string {
  return `${digits(n)} ${n === 1 ? noun : `${noun}s`}`;
}

/** `report --json`: the same numbers as data. */
export function signinObject(agg: Aggregates) {
  const s = agg.signin;
  return {
    asked: s.asked,
    ready: of(s, "ready"),
    manualRegistration: of(s, "manual_registration"),
    broken: of(s, "broken"),
    notOauth: of(s, "not_oauth"),
    brokenBy: s.broken,
    lenientOnly: s.lenientOk,
    sentences: signinSentences(agg),
  };
}

const BAR_COLOURS: Record<string, string> = {
  ready: "#2b8a3e",
  manual_registration: "#e67700",
  broken: "#c92a2a",
  not_oauth: "#868e96",
};

/** One target's sign-in chain, folded: its verdict in the summary, then each step and each fix. */
export function chainDetails(target: string, auth: AuthResult): string {
  const steps = auth.steps
    .map(
      (st) =>
        `<li class="${st.ok ? "ok" : "fail"}">${st.ok ? "✓" : "✗"} ${esc(st.step)} <code>${esc(st.url)}</code> ${esc(st.status !== null ? `HTTP ${st.status}` : (st.error ?? "no answer"))}</li>`,
    )
    .join("");
  const fixes = auth.defects
    .map(
      (d) =>
        `<li class="${esc(d.severity)}"><b>${esc(d.code)}</b> (${esc(d.side.replace("_", " "))}): ${esc(d.message)}</li>`,
    )
    .join("");
  return `<details class="signin-chain"><summary><span class="target">${esc(target)}</span> — ${esc(auth.verdict)}${auth.brokenAt ? ` at ${esc(auth.brokenAt)}` : ""} · strict ${esc(auth.clients.strict)}, TypeScript SDK ${esc(auth.clients.lenient)}</summary><ul class="steps">${steps}</ul>${fixes ? `<ul class="fixes">${fixes}</ul>` : ""}</details>`;
}

/** A target's sign-in chain as the probe walked it, when its latest attempt walked one. */
export interface Chain {
  target: string;
  auth: AuthResult;
}

export function chainOf(t: TargetSummary): Chain | null {
  const auth = t.latest.auth as AuthResult | null | undefined;
  return !!auth && typeof auth === "object" && Array.isArray(auth.steps) ? { target: t.target, auth } : null;
}

/**
 * The HTML section: a bar per verdict (broken split by cause), then the chains given (the page
 * passes the first of them by target) and how many more there are.
 */
export function signinSection(agg: Aggregates, chains: readonly Chain[], left = 0): string {
  const s = agg.signin;
  if (s.asked === 0) return "";
  const rows = [
    ...["ready", "manual_registration"].map((v) => ({
      label: VERDICT_LABEL[v]!,
      n: of(s, v),
      colour: BAR_COLOURS[v]!,
    })),
    ...s.broken.map((b) => ({ label: `broken: ${b.code}`, n: b.count, colour: BAR_COLOURS.broken! })),
    { label: VERDICT_LABEL.not_oauth!, n: of(s, "not_oauth"), colour: BAR_COLOURS.not_oauth! },
  ].filter((r) => r.n > 0);
  // the labels name the longest causes ("broken: authorization_server_metadata_not_found")
  const svg = barChart(
    "signin",
    "Sign-in verdicts",
    rows.map((r) => ({ label: r.label, count: r.n, colour: r.colour, value: digits(r.n) })),
    { labelWidth: 300 },
  );
  const shown = chains.map((t) => chainDetails(t.target, t.auth)).join("");
  const more =
    left > 0
      ? `<p class="muted">${esc(`${digits(left)} more ${left === 1 ? "chain is" : "chains are"} not shown here: \`mcp-wire report --target URL --json\` gives any server's chain.`)}</p>`
      : "";
  const words = signinSentences(agg)
    .map((p) => `<p>${esc(p)}</p>`)
    .join("");
  return `<h2 id="signin">Sign-in</h2>${words}<div class="charts one"><figure id="chart-signin"><figcaption>Servers that ask for sign-in, by verdict</figcaption>${svg}</figure></div>${shown ? `<h3>Each chain</h3>${shown}${more}` : ""}`;
}
