/**
 * A streamed HTTP request for a synthesis: the body's bytes as they come, under one abort (barge-in) and a stall
 * deadline per read (no bytes for timeoutMs -> AdapterError timeout). Ending the iteration early (a consumer's
 * break or return) cancels the request too, so the provider stops rendering what nobody will hear.
 */
import { AdapterError, type AdapterCallOptions } from '../../adapters/types.js';
import { retryAfterMs } from './retry.js';

export interface HttpFailure { status: number; retryAfterMs?: number; detail: string }

export async function* streamedBody(adapter: AdapterError['adapter'], name: string, url: string, init: RequestInit,
  opts: AdapterCallOptions & { timeoutMs: number; onError(f: HttpFailure): AdapterError }): AsyncGenerator<Uint8Array> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(new AdapterError(adapter, 'canceled', `${name} synthesis canceled`));
  if (opts.signal?.aborted) throw new AdapterError(adapter, 'canceled', `${name} synthesis canceled`);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  // the deadline runs only while we wait on the provider, never while the consumer holds a chunk
  const arm = () => {
    timer = setTimeout(() => ctl.abort(new AdapterError(adapter, 'timeout', `${name} sent no audio for ${opts.timeoutMs} ms`)), opts.timeoutMs);
  };
  const why = (err: unknown) => (ctl.signal.aborted ? ctl.signal.reason as AdapterError
    : new AdapterError(adapter, 'unavailable', `${name} unreachable: ${(err as Error)?.message ?? err}`));
  try {
    arm();
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: ctl.signal });
    } catch (err) { throw why(err); }
    if (!res.ok || !res.body) {
      const detail = await res.text().catch(() => '');
      clearTimeout(timer);
      throw opts.onError({ status: res.status, retryAfterMs: retryAfterMs(res.headers), detail: detail.slice(0, 300) });
    }
    const reader = res.body.getReader();
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (err) { throw why(err); }
      clearTimeout(timer);
      if (ctl.signal.aborted) throw ctl.signal.reason;
      if (r.done) return;
      if (r.value.length) yield r.value;
      arm();
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    if (!ctl.signal.aborted) ctl.abort(new AdapterError(adapter, 'canceled', `${name} synthesis no longer wanted`));
  }
}
