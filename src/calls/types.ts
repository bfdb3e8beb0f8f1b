/** The public shape of a call and the inputs of the call engine (deps.calls). */
import type { KnowledgeEntry } from '../dialog/knowledge.js';
import type { AgentRuntimeSettings, QualifyStep } from '../repos/agents.js';
import type { TransferMode } from '../adapters/types.js';

export const CALL_STATUSES = [
  'queued', 'scheduled', 'blocked', 'dialing', 'ringing', 'in_progress',
  'completed', 'no_answer', 'busy', 'failed', 'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Statuses that hold a tenant concurrency slot. */
export const ACTIVE_STATUSES: readonly CallStatus[] = ['queued', 'dialing', 'ringing', 'in_progress'];
export const TERMINAL_STATUSES: readonly CallStatus[] = ['blocked', 'completed', 'no_answer', 'busy', 'failed', 'canceled'];
export const isTerminal = (s: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(s);

/**
 * What a key the caller presses does: `operator` hands the call to a person (the agent's transfer number, else the
 * handoff queue), `opt_out` puts the caller's number on the tenant's do-not-disturb list, says so and ends the call,
 * `end_call` ends it. Keys without an action are the caller's input to the dialog.
 */
export const KEY_ACTIONS = ['operator', 'opt_out', 'end_call'] as const;
export type KeyAction = (typeof KEY_ACTIONS)[number];
export type Keypad = Partial<Record<string, KeyAction>>;

/** The agent a call runs with, frozen at dispatch (later agent edits do not change a running call). */
export interface AgentSnapshot extends AgentRuntimeSettings {
  disclosure_script: string;
  qualify_script: QualifyStep[];
  /** what a machine answer gets (answering-machine detection): a message, or a hang-up (default) */
  voicemail?: 'leave_message' | 'hang_up';
  /** the message left on a machine (default: the disclosure) */
  voicemail_message?: string | null;
  /** where a transfer to a human ('operator') is dialed for this agent (E.164); default HUMAN_TRANSFER_NUMBER */
  transfer_number?: string | null;
  /** cold (default) or warm: the human hears the call's summary while the caller holds */
  transfer_mode?: TransferMode;
  /** the agent's qualify script as written, when it is text: instructions for a language model */
  qualify_text?: string | null;
  /** the agent's knowledge base at dispatch (src/dialog/knowledge.ts) */
  knowledge?: KnowledgeEntry[];
  /** what the caller's keys do (src/calls/keypad.ts); none: every key is input to the dialog */
  keypad?: Keypad | null;
}

/** A call placed past the gates because it is transactional: who marked it, why, when, and which gates it lifted. */
export interface CallCompliance {
  transactional: true;
  reason: string;
  marked_by: string;
  marked_by_kind: 'user' | 'api_key';
  marked_at: string;
  gates_lifted: string[];
  audit_id: string;
}

export interface DispatchInput {
  to: string;
  agent_id?: string;
  agent?: AgentRuntimeSettings;
  language?: string;
  context?: Record<string, string>;
  tools?: string[];
  webhook_url?: string;
  lead_id?: string;
  /** a lead's job (src/leads/dispatcher.ts): marked done, and the lead dispatched, with the call */
  lead_job_id?: number;
  campaign_id?: string;
  conversation_id?: string;
  /** simulator scenario override (default: from the number, src/adapters/sim_numbers.ts) */
  scenario?: string;
  /** the callee's IANA zone when known (a lead's): spoken times are read in it; default: from the number */
  timezone?: string | null;
  /** place the call past the DND and calling-hours gates (where regulation allows); needs the gates' `by` */
  transactional?: { reason: string };
}

export interface CallMetrics {
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  turn_count: number;
  turns: TurnLatency[];
  interruptions_handled: number;
  backchannels_recovered: number;
  frames_in: number;
  frames_out: number;
  fallbacks: number;
}

/**
 * One agent turn: true end of caller speech -> first agent audio frame sent, by stage (ms): endpointing (media
 * time to the turn-end decision), then wall time to the final transcript, the first dialog text, the first whole
 * sentence, the first synthesised audio and the first frame sent. total_ms is their sum.
 */
export interface TurnLatency {
  total_ms: number;
  endpointing_ms: number;
  stt_ms: number;
  dialog_ms: number;
  sentence_ms: number;
  tts_ms: number;
  send_ms: number;
  /** media time of the caller's speech end (ms from call start) */
  speech_end_ms: number;
}

export type CallDirection = 'outbound' | 'inbound';

/** Why a call ended (`ended_reason`): the list and what each means are in ended_reasons.ts. */
export { ENDED_REASONS, ENDED_REASON_DESCRIPTIONS, type EndedReason } from './ended_reasons.js';

export interface CallRecord {
  id: string;
  status: CallStatus;
  /** one of ENDED_REASONS */
  ended_reason: string | null;
  /** outbound: we called the lead; inbound: the lead called one of our numbers */
  direction: CallDirection;
  /** the number called: the lead's (outbound), or ours (inbound) */
  to: string;
  /** the caller: the lead's number on an inbound call; null on an outbound one */
  from: string | null;
  agent_id: string | null;
  language: string;
  context: Record<string, string>;
  tools: string[];
  webhook_url: string | null;
  conversation_id: string | null;
  lead_id: string | null;
  campaign_id: string | null;
  created_at: string;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number | null;
  metrics: CallMetrics | null;
  extracted_data: Record<string, string | number> | null;
  actions_triggered: Array<{ type: string; status: string }> | null;
  human_escalation: boolean;
  recording_url: string | null;
  /** when the AI disclosure finished playing in full; null if it never did (hung up during it, failed) */
  disclosure_delivered_at: string | null;
  /** the carrier's own word for how the call went (status, error code, hang-up cause); null in the simulator */
  carrier_status: string | null;
  /** a few sentences on the call (who, what they want, budget, next step, open questions); null until it ends */
  summary: string | null;
  /** who wrote the summary: the dialog model, or built from the extracted fields (also the model's fallback); null without one */
  summary_source: 'model' | 'fields' | null;
  /** where the call went when it ended transferred to a number, and how (cold or warm); null otherwise */
  transfer: { target: string; mode: TransferMode } | null;
  /** set when the call was marked transactional (null otherwise) */
  compliance?: CallCompliance | null;
  transitions?: Array<{ from: string | null; to: string; reason: string | null; at: string }>;
}

export interface ListFilters {
  status?: CallStatus;
  agent_id?: string;
  created_after?: Date;
  created_before?: Date;
  limit: number;
  offset?: number;
  cursor?: string;
}
