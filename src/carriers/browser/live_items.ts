/**
 * The call's live items (transcripts, entities, escalations, statuses, transfers) as this process publishes them,
 * for the browser legs of its calls: a visitor without an account follows the call on the leg it already holds,
 * with the very messages /v1/calls/<id>/stream sends, not through a second credential. A browser leg lives on the
 * instance that runs its call, where every item of the call is published.
 */
import type { CallEventInput, CallEventMessage, CallEventSink } from '../../stream/types.js';

export class LiveItemTap implements CallEventSink {
  readonly #watchers = new Map<string, Set<(m: CallEventMessage) => void>>();
  constructor(private readonly inner: CallEventSink) {}

  async publish(tenantId: string, callId: string, event: CallEventInput): Promise<CallEventMessage> {
    const m = await this.inner.publish(tenantId, callId, event);
    this.#tell(m);
    return m;
  }

  announce(msg: CallEventMessage): void {
    this.inner.announce(msg);
    this.#tell(msg);
  }

  settled(callId: string): Promise<void> { return this.inner.settled?.(callId) ?? Promise.resolve(); }

  /** Calls `f` with each item of `callId` published from now on; returns the unsubscribe. */
  watch(callId: string, f: (m: CallEventMessage) => void): () => void {
    let set = this.#watchers.get(callId);
    if (!set) this.#watchers.set(callId, (set = new Set()));
    set.add(f);
    return () => {
      set.delete(f);
      if (set.size === 0 && this.#watchers.get(callId) === set) this.#watchers.delete(callId);
    };
  }

  #tell(m: CallEventMessage): void {
    const set = this.#watchers.get(m.call_id);
    if (set) for (const f of set) f(m);
  }
}
