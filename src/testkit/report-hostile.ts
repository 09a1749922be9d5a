/**
 * Census data written by someone who wants the report page to run their code: targets, names,
 * details, messages and advice full of markup, quotes and script. Every payload, if it ever ran,
 * sets `window.__pwned`.
 */
import { MemoryStore } from "./memory-store.js";
import { attempt, ok, rpc, type Shape } from "./report-fixtures.js";

export const PAYLOADS = [
  "<script>window.__pwned=1</script>",
  '"><img src=x onerror="window.__pwned=2">',
  "'><svg onload=window.__pwned=3>",
  '</td></tr></table><iframe srcdoc="<script>parent.__pwned=4</script>"></iframe>',
  "</style><script>window.__pwned=5</script>",
  "]]><!-- --><script>window.__pwned=6</script>",
] as const;

export function hostileStore(): MemoryStore {
  const store = new MemoryStore(() => new Date("2026-08-20T09:00:00Z"));
  const targets = PAYLOADS.map((p, i) => ({ target: `https://evil${i}.example/${p}`, kind: "http" as const, name: p }));
  const run = store.startRun(PAYLOADS[0], targets, {});
  PAYLOADS.forEach((p, i) => {
    const shape: Shape =
      i % 3 === 0
        ? rpc("rpc_error", "other", -32000 - i, p)
        : i % 3 === 1
          ? { class: "protocol_violation", detail: p, advice: `Advice ${p}` }
          : { ...ok("legacy", "2025-06-18"), detail: p };
    store.recordAttempt(attempt(run, targets[i]!.target, `2026-08-20T09:00:0${i}Z`, shape));
  });
  store.recordAttempt(
    attempt(run, "https://fine.example/mcp", "2026-08-20T09:00:09Z", {
      class: `x"><script>window.__pwned=7</script>`,
      detail: "d",
      advice: PAYLOADS[1],
    }),
  );
  store.finishRun(run);
  return store;
}
