/**
 * The bus contract: channels carry JSON-serialisable messages between the process that runs a call and
 * every WebSocket edge. Two implementations: in-process (embedded default) and Redis pub/sub.
 * Delivery is at most once (Redis pub/sub drops what is published while a subscriber is disconnected);
 * consumers that need every message keep a seq and repair gaps from storage, prompted by onReconnect.
 */
export type BusHandler = (message: unknown) => void;

export interface Bus {
  readonly kind: 'memory' | 'redis';
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes (idempotent). */
  subscribe(channel: string, handler: BusHandler): Promise<() => void>;
  /**
   * Called after the bus came back from an outage with its subscriptions active again: messages published
   * meanwhile may be lost. Returns a function that removes the listener.
   */
  onReconnect(listener: () => void): () => void;
  /** Throws when the bus is unreachable (used by GET /v1/ready). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Runs every handler even when one throws: one broken listener must not starve the others. */
export function deliver(handlers: Iterable<BusHandler>, message: unknown, onError: (err: unknown) => void): void {
  for (const h of handlers) {
    try { h(message); } catch (err) { onError(err); }
  }
}
