/**
 * The WebSocket edge of this process: call feeds (one bus subscription per call with local listeners),
 * the listeners, heartbeats (ping every pingIntervalMs; a peer that has not answered by the next ping is
 * terminated) and storage catch-up after a bus outage.
 */
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log.js';
import type { CallEventStore } from './event_store.js';
import { CallFeed } from './feed.js';
import { StreamListener, type ListenerLimits } from './listener.js';
import { CLOSE } from './protocol.js';

export interface EdgeOptions extends ListenerLimits {
  pingIntervalMs: number;
}

export const DEFAULT_EDGE_OPTIONS: EdgeOptions = {
  maxBufferedBytes: 1024 * 1024,
  historyPageSize: 500,
  endLingerMs: 1000,
  closeGraceMs: 2000,
  directFrameWrites: true,
  pingIntervalMs: 25_000,
};

export class StreamEdge {
  readonly options: EdgeOptions;
  #feeds = new Map<string, CallFeed>();
  #listeners = new Set<StreamListener>();
  #heartbeat?: NodeJS.Timeout;
  #offReconnect: () => void;
  #closed = false;

  constructor(private store: CallEventStore, private bus: Bus, private log: Logger, options: Partial<EdgeOptions> = {}) {
    this.options = { ...DEFAULT_EDGE_OPTIONS, ...options };
    this.#offReconnect = bus.onReconnect(() => {
      this.log.info({ feeds: this.#feeds.size }, 'bus reconnected; catching live feeds up from storage');
      for (const f of this.#feeds.values()) f.catchUp();
    });
    this.#startHeartbeat();
  }

  /** Changes limits at run time (tests, operators); a new ping interval takes effect at once. */
  configure(options: Partial<EdgeOptions>): void {
    Object.assign(this.options, options);
    if (options.pingIntervalMs !== undefined) this.#startHeartbeat();
  }

  get stats() { return { listeners: this.#listeners.size, feeds: this.#feeds.size }; }

  /** Recent fan-out times (one item to all local listeners of its call), ms; a ring of the last 1,024 items. */
  readonly fanoutMs: number[] = [];
  #fanoutNext = 0;
  readonly #recordFanout = (_listeners: number, ms: number): void => {
    if (this.fanoutMs.length < 1024) { this.fanoutMs.push(ms); return; }
    this.fanoutMs[this.#fanoutNext] = ms;
    this.#fanoutNext = (this.#fanoutNext + 1) % 1024;
  };

  /**
   * Attaches an authorised socket to a call (tenant already checked): history after afterSeq, then live.
   * `raw`: the socket handed to ws at the upgrade. `ended`: the call row is already in a terminal status. Resolves once the listener is live (or gone).
   */
  async attach(ws: WebSocket, raw: Duplex, callId: string, afterSeq: number, ended: boolean, onGone: () => void = () => {}): Promise<StreamListener> {
    let feed = this.#feeds.get(callId);
    if (!feed) this.#feeds.set(callId, (feed = new CallFeed(callId, this.store, this.bus, this.log, this.#recordFanout)));
    const f = feed;
    const listener: StreamListener = new StreamListener(ws, raw, callId, afterSeq, this.options, () => {
      this.#listeners.delete(listener);
      f.remove(listener.onFeedItem);
      if (f.size === 0 && this.#feeds.get(callId) === f) { this.#feeds.delete(callId); f.close(); }
      onGone();
    });
    this.#listeners.add(listener);
    f.add(listener.onFeedItem);
    ws.on('pong', () => { listener.alive = true; });
    ws.on('message', () => { listener.alive = true; });
    if (this.#closed) { listener.close(CLOSE.serverShutdown); return listener; }
    try {
      await f.ready;
      await listener.join(this.store, ended);
    } catch (err) {
      this.log.warn({ err, call_id: callId }, 'stream listener could not join');
      listener.close(CLOSE.internal);
    }
    return listener;
  }

  #startHeartbeat(): void {
    clearInterval(this.#heartbeat);
    if (this.#closed) return;
    this.#heartbeat = setInterval(() => {
      for (const l of this.#listeners) {
        if (!l.alive) { l.ws.terminate(); continue; }
        l.alive = false;
        try { l.ws.ping(); } catch { /* socket already closing */ }
      }
    }, this.options.pingIntervalMs);
    this.#heartbeat.unref();
  }

  /** Tells every listener the server is going away (they reconnect elsewhere and resume by seq). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#offReconnect();
    const sockets = [...this.#listeners].map((l) => l.ws);
    for (const l of [...this.#listeners]) l.close(CLOSE.serverShutdown);
    for (const f of this.#feeds.values()) f.close();
    this.#feeds.clear();
    // Give peers a moment to answer the close frame, then cut whoever has not.
    const deadline = Date.now() + 500;
    while (sockets.some((s) => s.readyState !== s.CLOSED) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const s of sockets) s.terminate();
  }
}
