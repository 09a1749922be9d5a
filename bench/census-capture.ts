/**
 * What a probe sends to each behaviour of the bench fleet, captured from a real probe through a
 * recording proxy: every request (method, path, headers, body) in order, grouped into waves
 * (requests sent together, before any of them was answered: the sign-in walk asks for several
 * documents at once). The bare `node:http` client of the CPU benchmark replays these, and the
 * latency benchmark reads from them how many answers a probe waits for one after another.
 */
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { probeHttp } from "../src/probe/probe.js";
import { MIX, type Behaviour } from "./census-fleet.js";

/** One request of a probe, its target's index in the path written `{i}`. */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The session header to send is the one the latest answer gave (a legacy session). */
  session: boolean;
}

export interface CapturedProbe {
  behaviour: Behaviour;
  /** What the probe concluded, to check a replay against. */
  verdict: string;
  waves: CapturedRequest[][];
}

/** Probes recorded per behaviour, the one with the fewest waves kept. */
const CAPTURES = 3;

/** Headers node:http writes itself for a request on a keep-alive agent. */
const OWN_HEADERS = new Set(["host", "connection", "content-length"]);

/**
 * Probes target `i` of each slot in MIX (i = slot) through a recording proxy in front of the
 * fleet at `port`. Hanging slots are skipped (a probe of one sends one request and waits).
 */
export async function captureProbes(port: number): Promise<Map<number, CapturedProbe>> {
  interface Seen {
    req: CapturedRequest;
    arrived: number;
    answered: number;
  }
  let seen: Seen[] = [];
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const arrived = performance.now();
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const entry: Seen = {
        req: {
          method: req.method!,
          path: req.url!,
          headers: plain(req.headers),
          body: body.toString("utf8"),
          session: req.headers["mcp-session-id"] !== undefined,
        },
        arrived,
        answered: Infinity,
      };
      seen.push(entry);
      const up = request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const back: Buffer[] = [];
          answer.on("data", (c: Buffer) => back.push(c));
          answer.on("end", () => {
            entry.answered = performance.now();
            res.writeHead(answer.statusCode!, answer.headers).end(Buffer.concat(back));
          });
        },
      );
      up.on("error", () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  const out = new Map<number, CapturedProbe>();
  try {
    for (let slot = 0; slot < MIX.length; slot++) {
      if (MIX[slot] === "hang") continue;
      // requests sent together can look one after the other (the second waits for a connection
      // to open, or for a busy machine), never the reverse: of a few tries, the fewest waves
      for (let attempt = 0; attempt < CAPTURES; attempt++) {
        seen = [];
        const r = await probeHttp(`http://127.0.0.1:${proxyPort}/t/${slot}`, { timeout: 10_000 });
        const waves: CapturedRequest[][] = [];
        let waveAnswered = -Infinity;
        for (const s of seen.sort((a, b) => a.arrived - b.arrived)) {
          s.req.path = s.req.path.replace(`/t/${slot}`, "/t/{i}");
          // sent after one of the current wave was answered: it waited for that answer
          if (waves.length === 0 || s.arrived >= waveAnswered) {
            waves.push([s.req]);
            waveAnswered = s.answered;
          } else {
            waves[waves.length - 1]!.push(s.req);
            waveAnswered = Math.min(waveAnswered, s.answered);
          }
        }
        const best = out.get(slot);
        if (!best || waves.length < best.waves.length)
          out.set(slot, { behaviour: MIX[slot]!, verdict: `${r.class}/${r.detail}`, waves });
      }
    }
  } finally {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }
  return out;
}

function plain(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (!OWN_HEADERS.has(k) && v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** Each slot's fastest probe alone (of five), in ms, against the fleet at `port`; a hang costs `timeoutMs`. */
export async function soloTimes(port: number, timeoutMs: number): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (let slot = 0; slot < MIX.length; slot++) {
    if (MIX[slot] === "hang") {
      times.set(slot, timeoutMs);
      continue;
    }
    let best = Infinity;
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      await probeHttp(`http://127.0.0.1:${port}/t/${slot}`, { timeout: timeoutMs });
      best = Math.min(best, performance.now() - t0);
    }
    times.set(slot, best);
  }
  return times;
}
