/** The report for a terminal: the story, the tables, then each target with its latest verdict. */
import type { Aggregates } from "../census/store.js";
import { heading, history, paragraphs } from "./story.js";
import { classRows, errorCodeRows, revisionRows } from "./tables.js";
import { CLASSES } from "./vocabulary.js";
import { printable } from "../codec/printable.js";
import { counted, digits, quote } from "./words.js";

export interface TextOptions {
  /** Wrap prose at this many columns. */
  width?: number;
  /** ANSI colour for a person at a terminal. */
  colour?: boolean;
}

export function renderText(agg: Aggregates, options: TextOptions = {}): string {
  const width = Math.max(60, options.width ?? 100);
  const bold = (s: string) => (options.colour ? `\x1b[1m${s}\x1b[0m` : s);
  const out: string[] = [bold(heading(agg)), "", ...paragraphs(agg).flatMap((p) => [wrap(p.join(" "), width, ""), ""])];
  if (agg.attempts === 0) return out.join("\n");

  out.push(
    bold("Classes"),
    ...table(
      ["class", "attempts", "share", "in plain words"],
      classRows(agg).map((r) => [r.class, digits(r.count), r.share, r.words]),
      "lrrl",
    ),
    "",
  );

  const revisions = revisionRows(agg);
  if (revisions.length > 0) {
    out.push(
      bold("Revisions spoken"),
      ...table(
        ["revision", "era", "answered", "share"],
        revisions.map((r) => [r.revision ?? "unknown", r.era ?? "", digits(r.count), r.share]),
        "llrr",
      ),
      "",
    );
  }

  const codes = errorCodeRows(agg);
  if (codes.length > 0) {
    out.push(
      bold("JSON-RPC error codes seen"),
      ...table(
        ["code", "range", "name", "count", "verdicts", "messages"],
        codes.map((c) => [
          String(c.code),
          c.range,
          c.name,
          digits(c.count),
          c.verdicts.join(", "),
          c.messages
            .slice(0, 3)
            .map((m) => quote(m, 40))
            .join(", "),
        ]),
        "lllrll",
      ),
      "",
    );
  }

  out.push(bold(agg.targets === 1 ? "Target" : `Targets (${digits(agg.targets)})`));
  for (const group of byVerdict(agg.perTarget)) {
    const first = group[0]!.latest;
    const ok = first.class === "ok";
    const mark = options.colour ? (ok ? "\x1b[32m✓\x1b[0m" : "\x1b[31m✗\x1b[0m") : ok ? "✓" : "✗";
    const what = ok
      ? `ok (${[first.era ?? first.detail, first.revision].filter(Boolean).join(", ")})`
      : `${first.class} (${first.detail})`;
    out.push(`${mark} ${what}${group.length > 1 ? `: ${digits(group.length)}` : ""}`);
    if (!ok && first.advice) out.push(wrap(printable(first.advice), width, "    "));
    for (const t of group) {
      const tools = ok && t.latest.tools !== null ? `  ${counted(t.latest.tools, "tool")}` : "";
      out.push(`  ${printable(t.target)}${t.name ? ` (${printable(t.name)})` : ""}${tools}${ok ? brokenRules(t) : ""}`);
      if (t.attempts > 1) out.push(wrap(history(t), width, "      "));
    }
  }
  return out.join("\n") + "\n";
}

/** An ok server that broke a rule at error on the way: said beside it, with the codes, so `✓ ok` does not read as clean. */
function brokenRules(t: PerTarget): string {
  const errors = t.latest.defects.filter((d) => d.severity === "error");
  if (errors.length === 0) return "";
  const codes = [...new Set(errors.map((d) => d.code))];
  return `  but ${counted(errors.length, "error defect")} (${codes.slice(0, 3).join(", ")}${codes.length > 3 ? ", …" : ""})`;
}

type PerTarget = Aggregates["perTarget"][number];

/**
 * Targets grouped by their latest verdict, failures first in the class order, so the advice a
 * group shares is printed once and not a thousand times.
 */
function byVerdict(targets: readonly PerTarget[]): PerTarget[][] {
  const rank = (cls: string) =>
    cls === "ok" ? CLASSES.length + 1 : Math.max(0, (CLASSES as readonly string[]).indexOf(cls));
  const key = (t: PerTarget) =>
    t.latest.class === "ok"
      ? `ok\0${t.latest.era}\0${t.latest.revision}`
      : `${t.latest.class}\0${t.latest.detail}\0${t.latest.advice}`;
  const groups = new Map<string, PerTarget[]>();
  for (const t of targets) {
    const k = key(t);
    const g = groups.get(k);
    if (g) g.push(t);
    else groups.set(k, [t]);
  }
  const order = (g: PerTarget[]) => g[0]!.latest;
  return [...groups.values()]
    .map((g) => g.sort((a, b) => a.target.localeCompare(b.target)))
    .sort(
      (a, b) =>
        rank(order(a).class) - rank(order(b).class) ||
        order(a).detail.localeCompare(order(b).detail) ||
        b.length - a.length ||
        (order(b).revision ?? "").localeCompare(order(a).revision ?? ""),
    );
}

function table(headers: string[], rows: string[][], align: string): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    "  " +
    cells
      .map((c, i) => (align[i] === "r" ? c.padStart(widths[i]!) : i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join("\n");
}
