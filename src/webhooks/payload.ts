/** The call.completed body: exactly the fields of spec §6.1, plus status and ended_reason. */
import type { CallRecord } from '../calls/types.js';

export interface CallCompletedPayload {
  event: 'call.completed';
  call_id: string;
  /** ISO 8601 UTC with milliseconds */
  timestamp: string;
  agent_id: string | null;
  duration_seconds: number;
  metrics: { latency_p50_ms: number; latency_p99_ms: number; turn_count: number; interruptions_handled: number };
  extracted_data: Record<string, string | number>;
  actions_triggered: Array<{ type: string; status: string }>;
  recording_url: string | null;
  human_escalation: boolean;
  status: string;
  ended_reason: string | null;
}

export function callCompletedPayload(call: CallRecord, now = new Date()): CallCompletedPayload {
  const m = call.metrics;
  return {
    event: 'call.completed',
    call_id: call.id,
    timestamp: now.toISOString(),
    agent_id: call.agent_id,
    duration_seconds: call.duration_seconds ?? 0,
    metrics: {
      latency_p50_ms: m?.latency_p50_ms ?? 0,
      latency_p99_ms: m?.latency_p99_ms ?? 0,
      turn_count: m?.turn_count ?? 0,
      interruptions_handled: m?.interruptions_handled ?? 0,
    },
    extracted_data: call.extracted_data ?? {},
    actions_triggered: call.actions_triggered ?? [],
    recording_url: call.recording_url,
    human_escalation: call.human_escalation,
    status: call.status,
    ended_reason: call.ended_reason,
  };
}
