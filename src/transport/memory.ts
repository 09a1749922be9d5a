/** Two transports wired to each other in memory: what one sends, the other receives. */
import { ClosedError } from "../peer/errors.js";
import type { Transport, TransportSink } from "../peer/transport.js";

class MemoryTransport implements Transport {
  other!: MemoryTransport;
  private sink: TransportSink | undefined;
  private early: string[] = [];
  private isClosed = false;

  start(sink: TransportSink): void {
    this.sink = sink;
    for (const text of this.early.splice(0)) sink.message(text);
  }

  send(text: string): void {
    if (this.isClosed) throw new ClosedError();
    // delivered on a later tick, as a real channel would: a handler never runs inside send()
    queueMicrotask(() => this.other.deliver(text));
  }

  private deliver(text: string): void {
    if (this.isClosed) return;
    if (this.sink) this.sink.message(text);
    else this.early.push(text);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.sink?.closed();
    // what this side already sent is on its way, as bytes in a pipe would be: deliveries are
    // queued microtasks, so waiting one turn lets them land before the other side closes
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    await this.other.close();
  }
}

export function createMemoryPair(): [Transport, Transport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.other = b;
  b.other = a;
  return [a, b];
}
