/**
 * Public types of the client library. Deliberately self-contained (no server imports): the package's entry
 * point must load without the service's dependencies.
 */

/** Agent runtime settings, sent inline instead of an agent_id. */
export interface AgentRuntimeSettings {
  role?: string;
  voice?: string;
  /** language tag, e.g. en-IN */
  language?: string;
  /** 0..1: how readily the agent yields when the caller talks over it */
  interruption_sensitivity?: number;
  /** silence that ends the caller's turn, ms */
  turn_detection_timeout_ms?: number;
}

export interface CreateCallInput {
  /** E.164, e.g. +14155550100 */
  to: string;
  agent_id?: string;
  agent?: AgentRuntimeSettings;
  language?: string;
  context?: Record<string, string>;
  tools?: string[];
  webhook_url?: string;
  /**
   * Place the call past the do-not-disturb and calling-hours gates where regulation allows (a service call about the
   * callee's own transaction). Admins only (admin JWT or admin API key); the reason is stored on the call and audited.
   */
  transactional?: { reason: string };
}

/** A call as the service returns it; id and status always, the rest as documented in /v1/openapi.json. */
export interface Call {
  id: string;
  status: string;
  ended_reason?: string | null;
  /** set when the call was marked transactional: who, why, when, and the gates it lifted */
  compliance?: { transactional: true; reason: string; marked_by: string; marked_by_kind: string; marked_at: string; gates_lifted: string[] } | null;
  [field: string]: unknown;
}

interface ItemBase { call_id: string; seq: number; at: string }
export interface TranscriptItem extends ItemBase { type: 'transcript'; speaker: 'caller' | 'agent' | 'operator'; text: string; latencyMs: number; partial: boolean }
export interface EntityItem extends ItemBase { type: 'entity'; key: string; value: string }
export interface EscalationItem extends ItemBase { type: 'escalation'; reason: string }
export interface StatusItem extends ItemBase { type: 'status'; status: string; ended_reason?: string | null }
export interface TransferItem extends ItemBase { type: 'transfer'; target: string; by: string; mode?: 'cold' | 'warm' }
export type LiveItem = TranscriptItem | EntityItem | EscalationItem | StatusItem | TransferItem;

export type EndReason = 'call_ended' | 'closed' | 'refused' | 'gave_up';

/** Events of `client.listen(callId)`. */
export interface CallListenerEvents {
  transcript: [TranscriptItem];
  entity: [EntityItem];
  escalation: [EscalationItem];
  status: [StatusItem];
  transfer: [TransferItem];
  /** the stream is over: the call ended (everything delivered), close() was called, or reconnecting was refused/abandoned */
  end: [{ reason: EndReason; lastSeq: number }];
  /** failures: refused connections, error replies to requests, transport errors while reconnecting */
  error: [Error];
  /** connected (again); afterSeq is where this connection resumed */
  open: [{ afterSeq: number }];
  reconnecting: [{ attempt: number; delayMs: number }];
}

/** An error answer of the service (problem+json) or of the stream (an {type:"error"} message). */
export class VoiceApiError extends Error {
  override name = 'VoiceApiError';
  constructor(message: string, readonly status: number, readonly code: string, readonly body?: unknown) { super(message); }
}
