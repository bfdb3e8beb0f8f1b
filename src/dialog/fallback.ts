/**
 * A dialog adapter with a fallback: when the primary (a model behind gRPC, say) fails or times out before it
 * said anything, the turn is answered by the fallback (the scripted engine) instead; when it fails after it
 * already spoke, the caller hears a short apology and the call escalates to a human ('dialog_failed').
 * Cancellation (barge-in, hang-up) is never masked: it propagates as is.
 */
import type { DialogAdapter, DialogEvent, DialogTurnOptions, DialogTurnRequest } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';

export const SPOKEN_FALLBACK_TEXT = "I'm sorry, I'm having trouble on my side. Let me connect you with a colleague.";

export interface FallbackDialogOptions {
  /** told each time the fallback steps in (logs, metrics) */
  onFallback?: (err: AdapterError, stage: 'before_reply' | 'mid_reply') => void;
}

export class FallbackDialog implements DialogAdapter {
  /** the primary's summary when it writes one; a failure is the caller's to replace (with the fields' summary) */
  readonly summarize?: DialogAdapter['summarize'];

  constructor(private readonly primary: DialogAdapter, private readonly fallback: DialogAdapter, private readonly opts: FallbackDialogOptions = {}) {
    if (primary.summarize) this.summarize = (req, o) => primary.summarize!(req, o);
  }

  async *turn(req: DialogTurnRequest, opts?: DialogTurnOptions): AsyncIterable<DialogEvent> {
    let spoke = false;
    try {
      for await (const e of this.primary.turn(req, opts)) {
        if (e.type === 'text') spoke = true;
        yield e;
      }
      return;
    } catch (err) {
      const e = err instanceof AdapterError ? err : new AdapterError('dialog', 'failed', String((err as Error)?.message ?? err));
      if (e.code === 'canceled' || opts?.signal?.aborted) throw e;
      this.opts.onFallback?.(e, spoke ? 'mid_reply' : 'before_reply');
      if (spoke) {
        yield { type: 'text', text: SPOKEN_FALLBACK_TEXT };
        yield { type: 'escalate', reason: 'dialog_failed' };
        return;
      }
    }
    // the primary said nothing: the fallback answers the whole turn (with a fresh deadline of its own)
    yield* this.fallback.turn(req, { signal: opts?.signal });
  }
}
