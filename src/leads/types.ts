/** What leads need from the call engine (deps.calls): a narrow port so tests can inject one. */
export interface LeadDispatchInput {
  to: string;
  agent_id?: string;
  lead_id: string;
  /** the lead_call_jobs row: the dispatch marks the lead dispatched and the job done in its own transaction */
  lead_job_id: number;
  conversation_id: string;
  context?: Record<string, string>;
  /** the lead's recorded zone: the agent reads spoken times in it */
  timezone?: string | null;
}

/** A lead's call as an item of the lead's own statement (create_leads), and its start after commit. */
export interface LeadDial {
  /** a dispatch_calls item (src/calls/service.ts DispatchItem); `id` is the call's id */
  item: { id: string };
  /** after commit, with dispatch_calls' answer for the item when it was dispatched ('ok'): announce and drive the call */
  start(out: { o_outcome: string }): { id: string; status: string };
}

export interface LeadCallPort {
  /** a separate dispatch: the scheduler's, for a lead whose job came due (`dndAt`: do-not-disturb checked again where the call is stored) */
  dispatch(tenantId: string, input: LeadDispatchInput, checks?: { dndAt: Date }): Promise<{ id: string; status: string }>;
  /**
   * Optional: the dispatch prepared to run inside the lead's own statement, so a lead dialed at once and its call
   * commit together (the engine's CallService.prepareDispatch). A port without it dials through a job + dispatch().
   */
  prepareDispatch?(tenantId: string, input: Omit<LeadDispatchInput, 'lead_job_id'>): LeadDial;
  /** the concurrency limit the engine dispatches under (with prepareDispatch) */
  readonly maxConcurrentPerTenant?: number;
}

/** The lead's outbound call as the API shows it: dialed, refused by a gate, waiting for calling hours, or failed. */
export type LeadCallView =
  | { status: 'queued' }
  | { status: 'dispatched'; id: string }
  | { status: 'blocked'; reason: string }
  | { status: 'scheduled'; reason: string; scheduled_for: string }
  | { status: 'failed'; reason: string };
