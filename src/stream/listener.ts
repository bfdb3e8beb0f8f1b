/**
 * One WebSocket listener of one call. Joining: it is attached to the call's feed first (live items are
 * buffered), then sends the stored history after `after_seq`, then the buffer, skipping every seq already sent;
 * from then on live items go straight out. Exactly once, in seq order. A listener whose unsent bytes
 * (socket buffer + join buffer) pass the bound is dropped with 4008 so it never slows the call or others.
 */
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { CallEventStore } from './event_store.js';
import type { FeedItem } from './feed.js';
import { isTerminal } from '../calls/types.js';
import { CLOSE } from './protocol.js';
import type { CallEventMessage } from './types.js';

export interface ListenerLimits {
  /** socket buffer + join buffer above which the listener is dropped, bytes */
  maxBufferedBytes: number;
  /** items per storage read while catching up */
  historyPageSize: number;
  /** after the terminal status item, keep the socket open this long for trailing items, ms */
  endLingerMs: number;
  /** after a close frame, wait this long for the peer before destroying the socket, ms */
  closeGraceMs: number;
  /** write each live item's prebuilt frame straight to the socket (default) instead of ws.send per listener */
  directFrameWrites: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class StreamListener {
  lastSent: number;
  /** set false on each ping, true on pong or any message: a peer still false at the next ping is dead */
  alive = true;
  #joining = true;
  #buffer: FeedItem[] = [];
  #bufferedBytes = 0;
  #closed = false;
  #endTimer?: NodeJS.Timeout;

  /**
   * @param raw the TCP socket ws was handed at the upgrade: live frames are written to it directly (ws sends
   *   nothing else in between except its own whole control frames; no compression, so it never queues)
   */
  constructor(readonly ws: WebSocket, private raw: Duplex, readonly callId: string, afterSeq: number, private limits: ListenerLimits, private onGone: () => void) {
    this.lastSent = afterSeq;
    ws.once('close', () => this.#gone());
  }

  get closed(): boolean { return this.#closed; }

  /** Feed subscriber: never throws, never waits. */
  readonly onFeedItem = (item: FeedItem): void => {
    if (this.#closed) return;
    if (this.#joining) {
      this.#buffer.push(item);
      this.#bufferedBytes += item.frame.length;
      if (this.ws.bufferedAmount + this.#bufferedBytes > this.limits.maxBufferedBytes) this.evict();
      return;
    }
    this.#send(item.seq, item.message, item);
  };

  /** Sends history after lastSent, then the live items buffered meanwhile; `ended`: the call is already over. */
  async join(store: CallEventStore, ended: boolean): Promise<void> {
    for (;;) {
      const page = await store.after(this.callId, this.lastSent, this.limits.historyPageSize);
      for (const m of page) {
        if (this.#closed) return;
        this.#send(m.seq, m);
        // History is ours to pace: wait for the socket to drain instead of counting it against the bound.
        while (!this.#closed && this.ws.bufferedAmount > this.limits.maxBufferedBytes / 2) await sleep(5);
      }
      if (page.length < this.limits.historyPageSize) break;
    }
    if (this.#closed) return;
    for (const item of this.#buffer) this.#send(item.seq, item.message, item);
    this.#buffer = [];
    this.#bufferedBytes = 0;
    this.#joining = false;
    if (ended) this.#scheduleEnd();
  }

  /** A live item (`item` given) goes out as its shared prebuilt frame; history is framed by ws. */
  #send(seq: number, message: CallEventMessage, item?: FeedItem): void {
    if (this.#closed || seq <= this.lastSent || this.ws.readyState !== this.ws.OPEN) return;
    const data = item ? undefined : JSON.stringify(message);
    const size = item ? item.frame.length : data!.length;
    if (this.ws.bufferedAmount + this.#bufferedBytes + size > this.limits.maxBufferedBytes) return this.evict();
    if (!item) this.ws.send(data!);
    else if (this.limits.directFrameWrites) this.raw.write(item.frame);
    else this.ws.send(item.payload, { binary: false });
    this.lastSent = seq;
    if (message.type === 'status' && isTerminal(message.status)) this.#scheduleEnd();
  }

  #scheduleEnd(): void {
    if (this.#endTimer || this.#closed) return;
    this.#endTimer = setTimeout(() => this.close(CLOSE.callEnded), this.limits.endLingerMs);
    this.#endTimer.unref();
  }

  /** Too slow: drop now (frees the feed slot at once), tell the peer why if it ever reads again. */
  evict(): void { this.close(CLOSE.slowConsumer); }

  close(how: { code: number; reason: string }): void {
    if (this.#closed) return;
    this.#gone();
    this.ws.close(how.code, how.reason);
    setTimeout(() => this.ws.terminate(), this.limits.closeGraceMs).unref();
  }

  #gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer = [];
    clearTimeout(this.#endTimer);
    this.onGone();
  }
}
