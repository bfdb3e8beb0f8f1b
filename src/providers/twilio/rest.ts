/**
 * The two REST requests we make of Twilio's Calls resource (create, update), over fetch: form bodies, HTTP Basic
 * AccountSid:AuthToken, JSON answers. Twilio's errors come back as {code, message, more_info, status}: thrown as
 * TwilioApiError. A rate limit (429, code 20429) and a server error (5xx) are retried here, the one place that
 * retries, after Retry-After when Twilio gives one, else a doubling delay.
 */
import { sleep } from '../../adapters/deadline.js';

export class TwilioApiError extends Error {
  override name = 'TwilioApiError';
  constructor(readonly httpStatus: number, readonly code: number | undefined, message: string, readonly moreInfo?: string,
    /** Twilio's Retry-After, ms */
    readonly retryAfterMs?: number) {
    super(message);
  }
  get retryable(): boolean { return this.httpStatus === 429 || this.code === 20429 || this.httpStatus >= 500; }
}

/** The fields of a Call resource we read. */
export interface TwilioCall { sid: string; status: string }

export interface TwilioRestOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** tries per request, the first included */
  attempts?: number;
  /** first retry delay without a Retry-After, ms (doubles per try) */
  retryBaseMs?: number;
  /** longest wait a Retry-After may ask for before we give up instead, ms */
  maxRetryAfterMs?: number;
}

export class TwilioRest {
  readonly #auth: string;
  readonly #callsUrl: string;
  constructor(private readonly o: TwilioRestOptions) {
    this.#auth = 'Basic ' + Buffer.from(`${o.accountSid}:${o.authToken}`).toString('base64');
    this.#callsUrl = `${o.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(o.accountSid)}/Calls`;
  }

  createCall(form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    return this.#post(`${this.#callsUrl}.json`, form, signal);
  }

  /** Status=completed|canceled hangs up; Twiml=… replaces what the call runs (a transfer). */
  updateCall(sid: string, form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    return this.#post(`${this.#callsUrl}/${encodeURIComponent(sid)}.json`, form, signal);
  }

  async #post(url: string, form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    const attempts = this.o.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(url, form, signal);
      } catch (err) {
        if (signal?.aborted || attempt >= attempts || !(err instanceof TwilioApiError && err.retryable)) throw err;
        const wait = err.retryAfterMs ?? (this.o.retryBaseMs ?? 500) * 2 ** (attempt - 1);
        if (wait > (this.o.maxRetryAfterMs ?? 10_000)) throw err;
        await sleep(wait, signal);
      }
    }
  }

  async #once(url: string, form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    const res = await fetch(url, {
      method: 'POST', body: form.toString(), signal,
      headers: { authorization: this.#auth, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try { body = text ? JSON.parse(text) as Record<string, unknown> : {}; } catch { /* a proxy's HTML page: the status says enough */ }
    if (res.ok && typeof body.sid === 'string') return { sid: body.sid, status: String(body.status ?? '') };
    const code = typeof body.code === 'number' ? body.code : undefined;
    const message = typeof body.message === 'string' ? body.message : `HTTP ${res.status}`;
    const retryAfter = res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : NaN;
    throw new TwilioApiError(res.status, code, message, typeof body.more_info === 'string' ? body.more_info : undefined,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined);
  }
}
