/**
 * `mcp-wire explain [id]`: what a finding means and how to fix it, printed from the check page
 * shipped in the package (docs/check.md), so every pointer mcp-wire prints to its documentation
 * works offline and in whatever repository the user is in. Without an id: every id, one a line.
 */
import { readFile } from "node:fs/promises";
import { OK, USAGE_ERROR } from "./exit.js";
import { writeErr, writeOut } from "./output.js";

/** The page, from the package root (three folders up from the compiled `dist/src/cli/explain.js`). */
const PAGE = new URL("../../../docs/check.md", import.meta.url);

export async function runExplain(id: string | undefined): Promise<number> {
  let page: string;
  try {
    page = await readFile(PAGE, "utf8");
  } catch {
    writeErr("mcp-wire explain: the documentation is not installed with this copy of mcp-wire (docs/check.md)\n");
    return USAGE_ERROR;
  }
  const sections = sectionsOf(page);
  if (id === undefined) {
    await writeOut(
      [...sections.entries()].map(([name, text]) => `${name.padEnd(36)} ${titleOf(text)}`).join("\n") + "\n",
    );
    return OK;
  }
  const section = sections.get(id.trim());
  if (section === undefined) {
    writeErr(
      `mcp-wire explain: no finding is named ${JSON.stringify(id.slice(0, 60))}; mcp-wire explain lists every id\n`,
    );
    return USAGE_ERROR;
  }
  await writeOut(`${section.trimEnd()}\n`);
  return OK;
}

/** Each `### <id>` section of the page, by id, with its heading. */
function sectionsOf(page: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = page.split(/\n(?=#{2,3} )/);
  for (const part of parts) {
    const m = /^### ([a-z0-9_]+)\n/.exec(part);
    if (m) out.set(m[1]!, part);
  }
  return out;
}

/** The bold title line under a section's heading. */
function titleOf(section: string): string {
  return /\n\*\*(.+?)\*\*/.exec(section)?.[1] ?? "";
}
