/**
 * The tape keeps plain message records compactly (their text as UTF-8 outside the heap): what it
 * gives back must be what it was given, member for member and in the same order, whatever the
 * text holds, beside records kept as they are, across its growth, up to its cap.
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { Sender } from "../codec/conversation.js";
import { VERSION } from "../version.js";
import { Tape, type TapeRecord } from "./tape.js";

const HEADER = { recording: 1, tool: "mcp-wire", version: VERSION, transport: "stdio" } as const;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const LINES = [
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"héllo ✓ 😀"}]}}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\ud800 alone"}}',
  "\ufeff" + '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  "not json at all \udc00",
  "",
  `{"jsonrpc":"2.0","id":3,"result":{"big":"${"é".repeat(200_000)}"}}`,
];

/** Each record without its time, as JSON (member order included). */
function shape(record: TapeRecord): string {
  assert.match(record.at, ISO);
  return JSON.stringify({ ...record, at: undefined });
}

test("plain records come back as the records add keeps, beside the others, in order, with their line numbers", () => {
  const compact = new Tape(HEADER);
  const objects = new Tape(HEADER);
  const sunk: TapeRecord[] = [];
  compact.sink = (r) => sunk.push(r);
  const lines: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const line = LINES[i % LINES.length]!;
    const from: Sender = i % 3 === 0 ? "server" : "client";
    const kind = ["request", "result", "invalid"][i % 3]!;
    const conversation = i % 5 === 0 ? undefined : `p${i % 4}`;
    const judged = i % 2 === 0;
    if (i % 7 === 3) {
      const http = { method: "POST", path: "/mcp", status: 200 };
      const record = { from, line, kind, http, defects: [] };
      lines.push(compact.add({ ...record }, judged));
      objects.add({ ...record }, judged);
      continue;
    }
    lines.push(compact.addPlain(from, line, kind, conversation, judged));
    const record: Omit<TapeRecord, "at" | "no"> = { from, line, kind };
    if (conversation !== undefined) record.conversation = conversation;
    record.defects = [];
    objects.add(record, judged);
  }
  assert.equal(compact.size, 3000);
  assert.deepEqual(
    lines,
    lines.map((_, i) => i + 2),
  );
  const got = compact.entries;
  const want = objects.entries;
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.equal(shape(got[i]!.record), shape(want[i]!.record), `record ${i}`);
    assert.equal(got[i]!.record.line, want[i]!.record.line, `record ${i}`);
    assert.equal(got[i]!.line, want[i]!.line);
    assert.deepEqual(got[i]!.value, want[i]!.value, `record ${i}`);
  }
  // the sink heard every record as it was kept, the same records
  assert.deepEqual(
    sunk.map(shape),
    want.map((e) => shape(e.record)),
  );
  // entries asked for again, and after more records, are the same objects and the new ones
  assert.equal(compact.entries[5], got[5]);
  compact.addPlain("client", LINES[0]!, "request", "p1", true);
  assert.equal(compact.entries.length, 3001);
  assert.equal(compact.entries[3000]!.record.no, objects.entries.filter((e) => e.record.from === "client").length + 1);
});

test("past its cap the tape counts plain records instead of keeping them", () => {
  const tape = new Tape(HEADER);
  for (let i = 0; i < 20_005; i++) tape.addPlain("client", `{"id":${i}}`, "invalid", undefined, false);
  assert.equal(tape.size, 20_000);
  assert.equal(tape.dropped, 5);
  assert.equal(tape.addPlain("server", "{}", "invalid", undefined, false), 0);
  assert.equal(tape.entries.at(-1)!.record.line, '{"id":19999}');
});
