/**
 * The server's notifications as events: any number of listeners per method, kept across the
 * channels a connection goes through (a fresh channel after a fallback gets them all again).
 */
import type { JsonObject } from "../codec/message.js";
import type { Peer } from "../peer/peer.js";

export type NotificationListener = (params: JsonObject) => void;

export class NotificationEvents {
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  private peer: Peer | undefined;

  /** Delivers what `peer` receives from now on. */
  attach(peer: Peer): void {
    this.peer = peer;
    for (const method of this.listeners.keys()) this.route(peer, method);
  }

  on(method: string, listener: NotificationListener): () => void {
    let set = this.listeners.get(method);
    if (!set) {
      set = new Set();
      this.listeners.set(method, set);
      if (this.peer) this.route(this.peer, method);
    }
    set.add(listener);
    return () => void set.delete(listener);
  }

  private route(peer: Peer, method: string): void {
    peer.onNotification(method, (params) => this.emit(method, params ?? {}));
  }

  private emit(method: string, params: JsonObject): void {
    const set = this.listeners.get(method);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(params);
      } catch {
        // one listener's failure must not keep the others from hearing it
      }
    }
  }
}
