/** `mcp-wire demo`: lints the bundled sample captures, one per era, and says what it found. */
import { createReadStream } from "node:fs";
import { fileURLToPath } from "node:url";
import { lintStream, summaryLine } from "../lint/lint.js";
import { paint, writeOut } from "./output.js";

const SAMPLES = [
  ["a legacy 2025-11-25 session over stdio", "legacy-session.ndjson"],
  ["modern 2026-07-28 stateless requests", "modern-requests.ndjson"],
] as const;

export async function runDemo(): Promise<number> {
  const colour = process.stdout.isTTY === true;
  for (const [title, file] of SAMPLES) {
    const path = fileURLToPath(new URL(`../../../samples/${file}`, import.meta.url));
    await writeOut(`${paint("bold", `== mcp-wire lint samples/${file}`, colour)}  (${title})\n`);
    const summary = await lintStream(createReadStream(path), {}, (r) => {
      if (r.kind === "blank") return;
      if (r.defects.length === 0) return writeOut(`line ${r.line}: ${r.kind} ${paint("green", "clean", colour)}\n`);
      return writeOut(
        `line ${r.line}: ${r.kind}\n` +
          r.defects.map((d) => `  ${paint(d.severity === "error" ? "red" : "yellow", d.severity, colour)} ${d.code}${d.path ? ` at ${d.path}` : ""}: ${d.message}\n`).join(""),
      );
    });
    await writeOut(summaryLine(summary) + "\n\n");
  }
  return 0;
}
