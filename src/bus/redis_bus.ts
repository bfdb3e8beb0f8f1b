/**
 * Redis pub/sub bus (ioredis). One connection publishes, one subscribes; a channel is subscribed on Redis once
 * however many local handlers it has. After an outage the subscriber re-subscribes every channel itself (and
 * waits for Redis to confirm) before telling onReconnect listeners, so they can repair what was lost meanwhile.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { deliver, type Bus, type BusHandler } from './bus.js';

export interface RedisBusOptions {
  /** called when a handler throws or a re-subscription fails; the bus keeps serving */
  onError?: (err: unknown) => void;
}

// Reconnect quickly at first, then every 1 s at most: an edge should resume soon after Redis returns.
const retryStrategy = (times: number) => Math.min(50 * times, 1000);

export class RedisBus implements Bus {
  readonly kind = 'redis' as const;
  #pub: Redis;
  #sub: Redis;
  #handlers = new Map<string, Set<BusHandler>>();
  #reconnectListeners = new Set<() => void>();
  #closed = false;
  #onError: (err: unknown) => void;

  constructor(url: string, opts: RedisBusOptions = {}) {
    this.#onError = opts.onError ?? (() => {});
    const base: RedisOptions = { retryStrategy, lazyConnect: false, enableOfflineQueue: true };
    // A publish during an outage fails after one reconnect attempt instead of piling up; the item is stored.
    this.#pub = new Redis(url, { ...base, maxRetriesPerRequest: 1 });
    // A subscribe waits for Redis (no retry limit); our own 'ready' handler restores the channels.
    this.#sub = new Redis(url, { ...base, maxRetriesPerRequest: null, autoResubscribe: false });
    // Connection errors surface through ping() and failed publishes; logging each retry would flood the log.
    this.#pub.on('error', () => {});
    this.#sub.on('error', () => {});
    this.#sub.on('message', (channel: string, raw: string) => {
      const set = this.#handlers.get(channel);
      if (!set) return;
      // Parsed per handler, as the in-process bus does: no handler can mutate what another one sees.
      for (const h of [...set]) {
        let msg: unknown;
        try { msg = JSON.parse(raw); } catch { return; }
        deliver([h], msg, this.#onError);
      }
    });
    this.#watchReconnects(this.#sub, () => this.#resubscribe());
    this.#watchReconnects(this.#pub, async () => {});
  }

  /** Every 'ready' after the first one follows an outage. */
  #watchReconnects(conn: Redis, restore: () => Promise<void>): void {
    let readyBefore = false;
    conn.on('ready', () => {
      if (!readyBefore) { readyBefore = true; return; }
      restore().then(() => this.#notifyReconnect(), (err) => this.#onError(err));
    });
  }

  async #resubscribe(): Promise<void> {
    const channels = [...this.#handlers.keys()];
    if (channels.length) await this.#sub.subscribe(...channels);
  }

  #notifyReconnect(): void {
    if (this.#closed) return;
    for (const l of [...this.#reconnectListeners]) {
      try { l(); } catch (err) { this.#onError(err); }
    }
  }

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.#closed) throw new Error('bus is closed');
    await this.#pub.publish(channel, JSON.stringify(message));
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => void> {
    if (this.#closed) throw new Error('bus is closed');
    let set = this.#handlers.get(channel);
    const first = !set;
    if (!set) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    // Every caller waits for Redis to confirm, also the second subscriber of a channel whose SUBSCRIBE is in flight.
    if (first) {
      try { await this.#sub.subscribe(channel); } catch (err) { this.#drop(channel, set, handler); throw err; }
    } else await this.#sub.ping();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#drop(channel, set!, handler);
    };
  }

  #drop(channel: string, set: Set<BusHandler>, handler: BusHandler): void {
    set.delete(handler);
    if (set.size === 0 && this.#handlers.get(channel) === set) {
      this.#handlers.delete(channel);
      if (!this.#closed) this.#sub.unsubscribe(channel).catch(() => {});
    }
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => { this.#reconnectListeners.delete(listener); };
  }

  async ping(): Promise<void> { await this.#pub.ping(); }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#handlers.clear();
    this.#reconnectListeners.clear();
    this.#pub.disconnect();
    this.#sub.disconnect();
  }
}
