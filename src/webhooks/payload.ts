/**
 * The call.completed body: exactly the contract's fields, plus status, ended_reason, disclosure_delivered_at and
 * summary; a
 * call that came in also says so (direction, and the numbers: from the lead, to ours).
 */
import type { CallRecord } from '../calls/types.js';

export interface CallCompletedPayload {
  event: 'call.completed';
  call_id: string;
  /** ISO 8601 UTC with milliseconds */
  timestamp: string;
  agent_id: string | null;
  /** null for a call never answered, as GET /v1/calls/<id> says */
  duration_seconds: number | null;
  /** null for a call that never ran a media session (and latencies null without a turn), as the API says */
  metrics: { latency_p50_ms: number | null; latency_p99_ms: number | null; turn_count: number; interruptions_handled: number } | null;
  extracted_data: Record<string, string | number>;
  actions_triggered: Array<{ type: string; status: string }>;
  recording_url: string | null;
  human_escalation: boolean;
  status: string;
  ended_reason: string | null;
  /** when the AI disclosure finished playing in full (null: it never did) */
  disclosure_delivered_at: string | null;
  /** a few sentences on the call: who, what they want, budget, next step, open questions (null: none written) */
  summary: string | null;
  /** who wrote it: 'model' (the dialog model) or 'fields' (built from extracted_data; the model's fallback) */
  summary_source: 'model' | 'fields' | null;
  /**
   * Only on a call that went to the handoff queue: who took it (`operator:<user id>`, null if nobody) and the
   * handoff's times (ISO 8601; accepted_at null if nobody accepted)
   */
  handoff?: { target: string | null; queued_at: string; accepted_at: string | null; ended_at: string | null };
  /** only on a call that ended transferred to a number: the number, and cold or warm (the human heard the summary first) */
  transfer?: { target: string; mode: 'cold' | 'warm' };
  /** only on a call that came in */
  direction?: 'inbound';
  from?: string | null;
  to?: string;
}

/**
 * Built from the call's public record (toRecord, the same function GET /v1/calls/<id> answers with), so the two
 * cannot disagree: what the API says is null is null here, never a zero.
 */
export function callCompletedPayload(call: CallRecord, now = new Date()): CallCompletedPayload {
  const m = call.metrics;
  return {
    event: 'call.completed',
    call_id: call.id,
    timestamp: now.toISOString(),
    agent_id: call.agent_id,
    duration_seconds: call.duration_seconds,
    metrics: m && {
      latency_p50_ms: m.latency_p50_ms,
      latency_p99_ms: m.latency_p99_ms,
      turn_count: m.turn_count,
      interruptions_handled: m.interruptions_handled,
    },
    extracted_data: call.extracted_data ?? {},
    actions_triggered: call.actions_triggered ?? [],
    recording_url: call.recording_url,
    human_escalation: call.human_escalation,
    status: call.status,
    ended_reason: call.ended_reason,
    disclosure_delivered_at: call.disclosure_delivered_at,
    summary: call.summary ?? null,
    summary_source: call.summary_source ?? null,
    ...(call.transfer ? { transfer: call.transfer } : {}),
    ...(call.direction === 'inbound' ? { direction: 'inbound' as const, from: call.from, to: call.to } : {}),
  };
}
