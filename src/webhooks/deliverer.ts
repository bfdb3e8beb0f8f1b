/**
 * Delivers the outbox at least once: polls for due rows (and is nudged when one is enqueued), POSTs each with a
 * Standard Webhooks signature under the row's fixed webhook-id, and retries network errors, timeouts, 5xx and 429
 * with exponential backoff and full jitter. Other 4xx and 3xx (redirects are not followed) are final, and so is
 * a URL whose host is or resolves to an address the outbound policy refuses (src/net/address_policy.ts).
 * At most RESPONSE_HEAD_BYTES of an answer are read, within one deadline for the whole exchange.
 */
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../log.js';
import { AddressPolicy } from '../net/address_policy.js';
import { boundedPost, RefusedAddressError } from '../net/outbound.js';
import type { OutboxRow, WebhookOutbox } from './outbox.js';
import type { WebhookSecrets } from './secrets.js';

export interface DelivererOptions {
  outbox: WebhookOutbox; secrets: WebhookSecrets; log: Logger;
  /** poll period when idle, ms */
  pollMs?: number;
  /** first retry delay, ms; doubles per attempt up to maxDelayMs */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** attempts before giving up */
  maxAttempts?: number;
  /** one deadline per attempt over connect, headers and body, ms */
  timeoutMs?: number;
  batch?: number;
  /** where deliveries may connect (default: public unicast only) */
  policy?: AddressPolicy;
}

/** Bytes of a receiver's answer read at most (the rest is not read: the connection is closed). */
export const RESPONSE_HEAD_BYTES = 4096;
/** Characters of the answer kept in the delivery log's `error` of a refused (non-2xx) delivery. */
const LOGGED_ANSWER_CHARS = 200;

export const isRetryableStatus = (s: number) => s >= 500 || s === 429 || s === 408;

/** Full jitter: uniform in [delay/2, delay] so retries of many receivers spread out. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, rand = Math.random): number {
  const d = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return d / 2 + rand() * (d / 2);
}

export class WebhookDeliverer {
  readonly #o: Required<Omit<DelivererOptions, 'outbox' | 'secrets' | 'log'>> & DelivererOptions;
  #timer?: NodeJS.Timeout;
  #running = false;
  #again = false;
  #closed = false;
  readonly #inflight = new Set<Promise<void>>();
  readonly stats = { delivered: 0, failed: 0, retried: 0 };

  constructor(o: DelivererOptions) {
    this.#o = { pollMs: 500, baseDelayMs: 1000, maxDelayMs: 10 * 60_000, maxAttempts: 12, timeoutMs: 10_000, batch: 20,
      policy: new AddressPolicy(), ...o };
  }

  start(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setInterval(() => this.kick(), this.#o.pollMs);
    this.#timer.unref();
    this.kick();
  }

  /** Looks for due rows now (after an enqueue). */
  kick(): void {
    if (this.#closed) return;
    if (this.#running) { this.#again = true; return; }
    this.#running = true;
    const run = this.#drain().catch((err) => this.#o.log.warn({ err }, 'webhook drain failed'))
      .finally(() => { this.#running = false; this.#inflight.delete(run); if (this.#again) { this.#again = false; this.kick(); } });
    this.#inflight.add(run);
  }

  async #drain(): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const rows = await this.#o.outbox.claim(this.#o.batch, this.#o.timeoutMs * 2);
      if (!rows.length) return;
      await Promise.all(rows.map((r) => this.#deliver(r)));
    }
  }

  async #deliver(row: OutboxRow): Promise<void> {
    const body = JSON.stringify(row.payload);
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const wh = new Webhook(await this.#o.secrets.forTenant(row.tenant_id));
      const ts = new Date();
      const res = await boundedPost(row.url, {
        policy: this.#o.policy, body, timeoutMs: this.#o.timeoutMs, maxResponseBytes: RESPONSE_HEAD_BYTES,
        headers: {
          'content-type': 'application/json', 'user-agent': 'voice-calling-service/1 webhooks',
          'webhook-id': row.id, 'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)), 'webhook-signature': wh.sign(row.id, ts, body),
        },
      });
      statusCode = res.status;
      if (res.status >= 300) error = `HTTP ${res.status}${answerExcerpt(res.head)}`;
    } catch (err) {
      refused = err instanceof RefusedAddressError;
      error = refused ? `refused: ${(err as Error).message}`
        : (err as Error).name === 'TimeoutError' ? 'timeout' : `network: ${(err as Error).message}`.slice(0, 300);
    }
    const durationMs = Date.now() - started;
    const attempt = row.attempts + 1;
    if (error === null) { this.stats.delivered++; return this.#o.outbox.recordAttempt(row, { statusCode, error, durationMs }, { state: 'delivered' }); }
    const retryable = !refused && (statusCode === null || isRetryableStatus(statusCode));
    if (!retryable || attempt >= this.#o.maxAttempts) {
      this.stats.failed++;
      this.#o.log.warn({ call_id: row.call_id, webhook_id: row.id, statusCode, error }, 'webhook gave up');
      return this.#o.outbox.recordAttempt(row, { statusCode, error, durationMs }, { state: 'failed' });
    }
    this.stats.retried++;
    await this.#o.outbox.recordAttempt(row, { statusCode, error, durationMs },
      { state: 'pending', delayMs: backoffMs(attempt, this.#o.baseDelayMs, this.#o.maxDelayMs) });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await Promise.allSettled([...this.#inflight]);
  }
}

/** ": <the start of the answer>" in one line of printable text, or nothing for an empty answer. */
function answerExcerpt(head: Buffer): string {
  const text = head.toString('utf8', 0, Math.min(head.length, LOGGED_ANSWER_CHARS * 4)).replace(/[\u0000-\u001f\u007f\ufffd]+/g, ' ').trim();
  return text ? `: ${text.slice(0, LOGGED_ANSWER_CHARS)}` : '';
}
