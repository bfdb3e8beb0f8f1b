/**
 * `client.listen(callId)`: a typed event emitter over the call's WebSocket stream. It reconnects with
 * exponential backoff (with jitter) and resumes by seq (`after_seq`), so every item is emitted once, in order.
 * It stops for good when the call ended (close 1000 call_ended), when close() is called, when the service
 * refuses the connection (401/403/404/400: retrying cannot help), or after maxAttempts failed reconnects.
 */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { VoiceApiError, type CallListenerEvents, type EndReason, type LiveItem } from './types.js';

export interface ListenOptions {
  /** resume after this seq (items up to it were already seen); default 0 = from the start of the call */
  afterSeq?: number;
  /** first reconnect delay, ms; doubles per failed attempt up to maxDelayMs */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** failed reconnects in a row before giving up (end reason 'gave_up'); default unlimited */
  maxAttempts?: number;
  /** no frame or ping from the service for this long means the connection is dead, ms (the service pings every 25 s) */
  idleTimeoutMs?: number;
  /** how long transfer() waits for the service to confirm, ms */
  transferTimeoutMs?: number;
}

const LIVE_TYPES = new Set(['transcript', 'entity', 'escalation', 'status', 'transfer']);
const FATAL_HTTP = new Set([400, 401, 403, 404]);

interface PendingTransfer { resolve: () => void; reject: (err: Error) => void; timer: NodeJS.Timeout }

export class CallListener extends EventEmitter<CallListenerEvents> {
  /** highest seq emitted so far: where a reconnect resumes */
  lastSeq: number;
  #opts: Required<Omit<ListenOptions, 'afterSeq'>>;
  #ws?: WebSocket;
  #attempt = 0;
  #ended = false;
  #retryTimer?: NodeJS.Timeout;
  #idleTimer?: NodeJS.Timeout;
  #transfers: PendingTransfer[] = [];

  constructor(
    readonly callId: string,
    private streamUrl: string,
    private headers: Record<string, string>,
    private restTransfer: (target?: string) => Promise<unknown>,
    opts: ListenOptions = {},
  ) {
    super();
    this.lastSeq = opts.afterSeq ?? 0;
    this.#opts = {
      initialDelayMs: opts.initialDelayMs ?? 250, maxDelayMs: opts.maxDelayMs ?? 10_000,
      maxAttempts: opts.maxAttempts ?? Infinity, idleTimeoutMs: opts.idleTimeoutMs ?? 60_000,
      transferTimeoutMs: opts.transferTimeoutMs ?? 10_000,
    };
    // Connect on the next tick so the caller can attach handlers first.
    queueMicrotask(() => this.#connect());
  }

  get connected(): boolean { return this.#ws?.readyState === WebSocket.OPEN; }

  /**
   * Hands the call to a human (optional E.164 target). Over the open socket, resolves once the service has
   * published the 'transfer' item; without a connection, through POST /v1/calls/:id/transfer.
   */
  async transfer(target?: string): Promise<void> {
    if (!this.connected) { await this.restTransfer(target); return; }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => settle(new VoiceApiError('transfer was not confirmed in time', 0, 'timeout')), this.#opts.transferTimeoutMs);
      const entry: PendingTransfer = { resolve: () => settle(), reject: (err) => settle(err), timer };
      const settle = (err?: Error) => {
        clearTimeout(timer);
        this.#transfers = this.#transfers.filter((p) => p !== entry);
        if (err) reject(err); else resolve();
      };
      this.#transfers.push(entry);
      this.#ws!.send(JSON.stringify(target ? { type: 'transfer', target } : { type: 'transfer' }));
    });
  }

  /** Stops listening (end reason 'closed'). */
  close(): void { this.#finish('closed'); }

  #connect(): void {
    if (this.#ended) return;
    const ws = new WebSocket(`${this.streamUrl}?after_seq=${this.lastSeq}`, { headers: this.headers });
    this.#ws = ws;
    const current = () => this.#ws === ws && !this.#ended;
    ws.on('open', () => {
      if (!current()) return;
      this.#attempt = 0;
      this.#armIdle();
      this.emit('open', { afterSeq: this.lastSeq });
    });
    ws.on('ping', () => { if (current()) this.#armIdle(); });
    ws.on('message', (data, isBinary) => {
      if (!current() || isBinary) return;
      this.#armIdle();
      let msg: any;
      try { msg = JSON.parse(String(data)); } catch { return; }
      this.#onMessage(msg);
    });
    ws.on('unexpected-response', (req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c; });
      res.on('end', () => {
        req.destroy();
        if (!current()) return;
        let body: any; try { body = JSON.parse(text); } catch { body = undefined; }
        const err = new VoiceApiError(body?.detail ?? `stream refused: HTTP ${res.statusCode}`, res.statusCode ?? 0, body?.code ?? 'http_error', body);
        this.#emitError(err);
        if (FATAL_HTTP.has(res.statusCode ?? 0)) this.#finish('refused');
        else this.#retry();
      });
    });
    ws.on('error', (err) => { if (current()) this.#emitError(err); });
    ws.on('close', (code, reason) => {
      if (!current()) return;
      if (code === 1000 && String(reason) === 'call_ended') this.#finish('call_ended');
      else this.#retry();
    });
  }

  #onMessage(msg: any): void {
    if (msg?.type === 'error') {
      const err = new VoiceApiError(String(msg.detail ?? 'stream error'), 0, String(msg.code ?? 'error'), msg);
      if (msg.request === 'transfer' && this.#transfers.length) this.#transfers[0].reject(err);
      else this.#emitError(err);
      return;
    }
    if (!LIVE_TYPES.has(msg?.type) || typeof msg.seq !== 'number' || msg.seq <= this.lastSeq) return;
    this.lastSeq = msg.seq;
    const item = msg as LiveItem;
    this.emit(item.type, item as never);
    if (item.type === 'transfer') for (const p of [...this.#transfers]) p.resolve();
  }

  #retry(): void {
    clearTimeout(this.#idleTimer);
    // Forget the old socket first: its late events are no longer current() and cannot schedule a second retry.
    const old = this.#ws;
    this.#ws = undefined;
    old?.terminate();
    if (this.#ended) return;
    this.#attempt++;
    if (this.#attempt > this.#opts.maxAttempts) return this.#finish('gave_up');
    const base = Math.min(this.#opts.maxDelayMs, this.#opts.initialDelayMs * 2 ** (this.#attempt - 1));
    const delayMs = Math.round(base * (0.5 + Math.random() / 2));
    this.emit('reconnecting', { attempt: this.#attempt, delayMs });
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#connect(), delayMs);
  }

  #armIdle(): void {
    clearTimeout(this.#idleTimer);
    const ws = this.#ws;
    this.#idleTimer = setTimeout(() => ws?.terminate(), this.#opts.idleTimeoutMs);
  }

  #emitError(err: Error): void {
    // An 'error' event without a listener would throw; a listener that only wants items should not crash.
    if (this.listenerCount('error')) this.emit('error', err);
  }

  #finish(reason: EndReason): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#idleTimer);
    const ws = this.#ws;
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) {
      if (ws.readyState === WebSocket.OPEN) ws.close(1000); else ws.terminate();
    }
    for (const p of [...this.#transfers]) p.reject(new VoiceApiError('stream ended before the transfer was confirmed', 0, 'stream_ended'));
    this.emit('end', { reason, lastSeq: this.lastSeq });
  }
}
