/** Shapes of the API answers the app reads (see GET /v1/openapi.json). */
import type { Call as ClientCall } from '../../../src/client/types.js';

export interface Kpis { attempted: number; connected: number; qualified: number; booked: number; from: string; to: string }

export interface AnalyticsFigures {
  calls: number; connected: number; avg_duration_seconds: number | null;
  latency_p50_ms: number | null; latency_p99_ms: number | null; interruption_rate: number | null; escalation_rate: number | null;
}
export interface Analytics extends AnalyticsFigures {
  by_status: Record<string, number>;
  by_day: Array<{ day: string; calls: number; connected: number }>;
  per_agent: Array<AnalyticsFigures & { agent_id: string }>;
}

export interface Agent {
  id: string; name: string; disclosure_script: string; qualify_script: Array<{ field: string; question: string }>;
  role: string; voice: string; language: string; interruption_sensitivity: number; turn_detection_timeout_ms: number;
  /** what the agent answers callers' questions from */
  knowledge?: Array<{ question?: string; answer: string }>;
  updated_at?: string;
}
export interface AgentList { data: Agent[] }

export interface TurnMetrics { endpointing_ms: number; stt_ms: number; dialog_ms: number; tts_ms: number; total_ms: number; speech_end_ms?: number }

export interface Call extends ClientCall {
  to: string; agent_id: string; language: string; created_at: string; answered_at: string | null; ended_at: string | null;
  duration_seconds: number | null; conversation_id: string | null; lead_id: string | null; campaign_id: string | null;
  metrics: null | { turns?: TurnMetrics[]; turn_count: number; latency_p50_ms: number | null; latency_p99_ms: number | null; interruptions_handled: number; fallbacks?: number };
  extracted_data: Record<string, string | number> | null;
  actions_triggered: Array<{ type: string; status: string }> | null;
  human_escalation: boolean;
  recording_url: string | null;
  /** a few sentences on the call once it ended (who, what, budget, next step, open questions) */
  summary?: string | null;
  /** who wrote it: the dialog model, or built from the extracted fields */
  summary_source?: 'model' | 'fields' | null;
  transitions?: Array<{ from: string | null; to: string; reason: string; at: string }>;
}
export interface CallList { data: Call[]; next_cursor: string | null }

export interface Handoff {
  id: string; conversation_id: string; handoff_state: 'waiting' | 'with_operator' | 'resolved'; reason: string | null;
  accepted_by: string | null; queued_at: string | null; accepted_at: string | null; ended_at: string | null; resolution: 'agent' | 'close' | null; call_id: string | null; lead_id: string | null; created_at: string; updated_at: string;
  history?: Array<{ action: string; from_state: string; to_state: string; at: string; by: string }>;
}
export interface ConversationView {
  id: string; state: string; messages: Array<{ id: number; role: string; text: string; at: string; meta?: { spoken?: boolean } }>;
  /** once it ended: a few sentences (who, what, budget, next step, open questions), and who wrote them */
  summary?: string | null; summary_source?: 'model' | 'fields' | null;
}

export interface WebhookDelivery {
  webhook_id: string; event: string; url: string; state: string; attempts: number; created_at: string;
  next_attempt_at: string | null; delivered_at: string | null;
  log: Array<{ attempt: number; status_code: number | null; error: string | null; duration_ms: number; at: string }>;
}

export interface Lead {
  id: string; name: string; phone: string; source: string; domain: string; created_at: string; conversation_id: string | null;
  call: { status: string; id?: string; reason?: string; scheduled_for?: string } | null; duplicate?: boolean;
}

export interface Campaign {
  id: string; name: string; agent_id: string; state: string; calling_window: { start: string; end: string }; timezone: string;
  max_concurrency: number; created_at: string; started_at: string | null; finished_at: string | null;
  progress?: Record<string, number>;
}
