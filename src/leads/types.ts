/** What leads need from the call engine (deps.calls, calls owner): a narrow port so tests can inject one. */
export interface LeadDispatchInput {
  to: string;
  agent_id?: string;
  lead_id: string;
  /** the lead_call_jobs row: the dispatch marks the lead dispatched and the job done in its own transaction */
  lead_job_id: number;
  conversation_id: string;
  context?: Record<string, string>;
}

export interface LeadCallPort {
  dispatch(tenantId: string, input: LeadDispatchInput): Promise<{ id: string; status: string }>;
}

/** The lead's outbound call as the API shows it: dialed, refused by a gate, waiting for calling hours, or failed. */
export type LeadCallView =
  | { status: 'queued' }
  | { status: 'dispatched'; id: string }
  | { status: 'blocked'; reason: string }
  | { status: 'scheduled'; reason: string; scheduled_for: string }
  | { status: 'failed'; reason: string };
