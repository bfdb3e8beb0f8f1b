/** In-process bus: the embedded default. Delivery is async (microtask) like a real broker, never re-entrant. */
import { deliver, type Bus, type BusHandler } from './bus.js';

export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  #subs = new Map<string, Set<BusHandler>>();
  #closed = false;

  constructor(private onHandlerError: (err: unknown) => void = () => {}) {}

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.#closed) throw new Error('bus is closed');
    const subs = this.#subs.get(channel);
    if (!subs) return;
    // Serialise once and parse per delivery so a subscriber cannot mutate what another one sees, as with a broker.
    const payload = JSON.stringify(message);
    // Snapshot: a handler subscribing during delivery gets the next message, not this one.
    const handlers = [...subs];
    queueMicrotask(() => {
      for (const h of handlers) deliver([h], JSON.parse(payload), this.onHandlerError);
    });
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => void> {
    if (this.#closed) throw new Error('bus is closed');
    let set = this.#subs.get(channel);
    if (!set) this.#subs.set(channel, (set = new Set()));
    set.add(handler);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      set!.delete(handler);
      if (set!.size === 0 && this.#subs.get(channel) === set) this.#subs.delete(channel);
    };
  }

  /** An in-process bus has no outages. */
  onReconnect(_listener: () => void): () => void { return () => {}; }

  async ping(): Promise<void> { if (this.#closed) throw new Error('bus is closed'); }

  async close(): Promise<void> { this.#closed = true; this.#subs.clear(); }
}
