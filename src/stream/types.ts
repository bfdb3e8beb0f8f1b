/**
 * Live-stream items of a call (README.md). The call's process publishes them through CallEventSink;
 * they are stored first (per-call seq) and then fanned out over the bus to the WebSocket edges.
 */
export type CallEventInput =
  | { type: 'transcript'; speaker: 'caller' | 'agent' | 'operator'; text: string; latencyMs: number; partial: boolean;
    /** an operator's spoken turn: where it is in the recording (channel 2), ms; text '' when the recogniser made nothing of it */
    audio?: { offset_ms: number; duration_ms: number } }
  | { type: 'entity'; key: string; value: string }
  | { type: 'escalation'; reason: string }
  | { type: 'status'; status: string; ended_reason?: string | null }
  | { type: 'transfer'; target: string; by: string; mode?: 'cold' | 'warm' };

/** What a listener receives: the item plus call_id, a per-call seq (1, 2, …) and `at` (ISO 8601 UTC). */
export type CallEventMessage = CallEventInput & { call_id: string; seq: number; at: string };

export interface CallEventSink {
  /** Stores the item (next per-call seq), then publishes it. */
  publish(tenantId: string, callId: string, event: CallEventInput): Promise<CallEventMessage>;
  /**
   * Publishes an item that another statement already stored with its seq (a status move stores its own item,
   * see src/calls/lifecycle.ts), after the call's earlier items on this process.
   */
  announce(msg: CallEventMessage): void;
  /**
   * Resolves once the call's items published so far on this process are stored (or given up): a call's final status
   * move waits for it, so no item of the call gets a seq after its end. Optional for sinks that store nothing.
   */
  settled?(callId: string): Promise<void>;
}
