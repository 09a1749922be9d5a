/**
 * One census worker of the queue benchmark, in a process of its own as on a real cluster:
 * `node queue-worker.js <url> <run> <concurrency> <perHost>`. Probes nothing (each target's
 * verdict is made up at once), so what it measures is the queue: claims, stored attempts,
 * lease renewals. Prints one JSON line: `{ recorded, start, end }` (epoch ms: when it began to
 * work, after Node and the store had started, and when it was done).
 */
import { openStore } from "../src/census/open-store.js";
import { runWorker } from "../src/census/worker.js";
import { instantProbe } from "./instant-probe.js";

const [url, run, concurrency, perHost] = process.argv.slice(2);
if (!url || !run) {
  process.stderr.write("usage: queue-worker <url> <run> <concurrency> <perHost>\n");
  process.exit(2);
}
const store = await openStore(url, "existing");
const start = Date.now();
const outcome = await runWorker(store, Number(run), {
  concurrency: Number(concurrency),
  perHost: Number(perHost),
  pollMs: 20,
  probe: instantProbe,
});
const end = Date.now();
await store.close();
process.stdout.write(`${JSON.stringify({ recorded: outcome.recorded, start, end })}\n`);
