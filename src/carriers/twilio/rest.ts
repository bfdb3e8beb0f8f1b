/**
 * The two REST requests we make of Twilio's Calls resource (create, update) through the carriers' REST helper:
 * form bodies, HTTP Basic AccountSid:AuthToken, JSON answers. Twilio's errors come back as {code, message,
 * more_info, status}: thrown as TwilioApiError. A rate limit (429, code 20429) and a server error (5xx) are retried
 * (README.md, "Errors"), after Retry-After when Twilio gives one, else a doubling delay.
 */
import { AdapterError } from '../../adapters/types.js';
import { errorDetail } from '../../providers/http/errors.js';
import { CarrierApi, type CarrierHttpAnswer } from '../rest.js';

export class TwilioApiError extends Error {
  override name = 'TwilioApiError';
  constructor(readonly httpStatus: number, readonly code: number | undefined, message: string, readonly moreInfo?: string) {
    super(message);
  }
  /** Twilio says "try again later": a rate limit or a server error */
  get retryable(): boolean { return this.httpStatus === 429 || this.code === 20429 || this.httpStatus >= 500; }
}

/** The fields of a Call resource we read. */
export interface TwilioCall { sid: string; status: string }

export interface TwilioRestOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** first retry delay without a Retry-After, ms (doubles per try) */
  retryBaseMs?: number;
}

export class TwilioRest {
  readonly #api: CarrierApi;
  constructor(private readonly o: TwilioRestOptions) {
    this.#api = new CarrierApi('twilio', `${o.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(o.accountSid)}/Calls`,
      [o.accountSid, o.authToken], { notActed: saysTryAgain, ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}) });
  }

  createCall(form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    return this.#post('.json', form, signal, false);
  }

  /** Status=completed|canceled hangs up; Twiml=… replaces what the call runs (a transfer). */
  updateCall(sid: string, form: URLSearchParams, signal?: AbortSignal): Promise<TwilioCall> {
    return this.#post(`/${encodeURIComponent(sid)}.json`, form, signal, true);
  }

  async #post(path: string, form: URLSearchParams, signal: AbortSignal | undefined, idempotent: boolean): Promise<TwilioCall> {
    const a = await this.#api.send('POST', path, { form, signal, idempotent });
    const body = (a.json ?? {}) as Record<string, unknown>;
    if (a.status >= 200 && a.status < 300 && typeof body.sid === 'string') return { sid: body.sid, status: String(body.status ?? '') };
    throw apiError(a, this.o.authToken);
  }
}

/** Twilio's "try again later": its rate limit, or a server error */
const saysTryAgain = (a: CarrierHttpAnswer): boolean => a.status >= 500 || (a.json as { code?: unknown } | undefined)?.code === 20429;

function apiError(a: CarrierHttpAnswer, token: string): TwilioApiError {
  const body = (a.json ?? {}) as Record<string, unknown>;
  const code = typeof body.code === 'number' ? body.code : undefined;
  // a proxy's HTML page: the status says enough
  const message = typeof body.message === 'string' ? errorDetail(JSON.stringify({ message: body.message }), [token], 300) : `HTTP ${a.status}`;
  return new TwilioApiError(a.status, code, message, typeof body.more_info === 'string' ? body.more_info : undefined);
}

/** A request Twilio refused (TwilioApiError) or never answered, as the carrier's AdapterError. */
export function asCarrierError(err: unknown, signal?: AbortSignal): AdapterError {
  if (err instanceof TwilioApiError) {
    return new AdapterError('carrier', err.retryable ? 'unavailable' : 'failed', `Twilio error ${err.code ?? err.httpStatus}: ${err.message}`);
  }
  if (signal?.aborted) return new AdapterError('carrier', 'canceled', 'call update canceled');
  return err instanceof AdapterError ? err : new AdapterError('carrier', 'unavailable', `Twilio could not be reached: ${(err as Error).message}`);
}
