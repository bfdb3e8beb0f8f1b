/**
 * POST /v1/leads: store the lead, open a conversation whose first agent message is the AI
 * disclosure, then dial through the DND / calling-hours gate. Leads arriving together are stored by one
 * statement (group commit, src/db/functions/create_leads.sql), each serialised per tenant+number by an advisory
 * lock so two simultaneous copies of a lead make one lead and one call. A lead the gates let through is dialed in
 * that same statement (the call engine's dispatch as an item of it), so the lead and its call commit together.
 */
import { Batcher, maxBatchFor, REQUEST_WRITE_LINGER_MS } from '../db/batcher.js';
import type { Db } from '../db/db.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { AgentRepo } from '../repos/agents.js';
import { DEFAULT_AGENT } from '../repos/agents.js';
import { RETRY_DELAY_MS, type LeadDispatcher } from './dispatcher.js';
import { callingHoursGate } from './gates.js';
import { LeadRepo, type CreatedLead, type LeadRow, type NewLead } from './lead_repo.js';
import { calleeTimeZone, isTimeZone, parseE164 } from './phone.js';
import type { LeadCallPort, LeadCallView, LeadDial } from './types.js';

export interface LeadInput { name: string; phone: string; source: string; domain: string; timezone?: string; agent_id?: string }

export interface LeadView {
  id: string; name: string; phone: string; source: string; domain: string; timezone: string | null;
  conversation_id: string | null; agent_id?: string; created_at: string; call: LeadCallView;
}

export function leadView(l: LeadRow): LeadView {
  const call: LeadCallView =
    l.call_status === 'dispatched' ? { status: 'dispatched', id: l.call_id! }
    : l.call_status === 'blocked' ? { status: 'blocked', reason: l.call_reason ?? 'dnd' }
    : l.call_status === 'scheduled' ? { status: 'scheduled', reason: l.call_reason ?? 'calling_hours', scheduled_for: l.scheduled_for! }
    : l.call_status === 'failed' ? { status: 'failed', reason: l.call_reason ?? 'failed' }
    : { status: 'queued' };
  return { id: l.id, name: l.name, phone: l.e164, source: l.source, domain: l.domain, timezone: l.timezone, conversation_id: l.conversation_id, created_at: l.created_at, call };
}

export class LeadService {
  readonly repo: LeadRepo;
  /** the clock gates and schedules use (tests fix it) */
  clock: () => Date = () => new Date();
  readonly #creates: Batcher<NewLead, CreatedLead>;

  constructor(private readonly o: {
    db: Db; agents: AgentRepo; dispatcher: LeadDispatcher; calls: () => LeadCallPort; instanceId: string;
    defaultRegion: string; duplicateWindowSeconds: number;
  }) {
    this.repo = new LeadRepo(o.db);
    // One batch in flight, as for dispatches (src/calls/service.ts): a batch that dials holds its tenant's dispatch
    // lock until commit, so a second one would mostly wait for it inside PostgreSQL.
    this.#creates = new Batcher((items) => this.repo.createMany(items, o.instanceId, o.calls()?.maxConcurrentPerTenant ?? 0),
      { maxBatch: maxBatchFor(o.db.kind, 100), maxInFlight: 1, lingerMs: REQUEST_WRITE_LINGER_MS });
  }

  async create(by: { tenantId: string; sub: string }, input: LeadInput): Promise<{ lead: LeadView; duplicate: boolean }> {
    const { e164, country } = parseE164(input.phone, this.o.defaultRegion);
    if (input.timezone && !isTimeZone(input.timezone)) {
      throw new ApiError('validation_failed', 'body.timezone: not an IANA time zone', { fields: [{ path: 'body.timezone', message: 'not an IANA time zone' }] });
    }
    // The zone recorded with the lead: the one given, else the number's when its country has only one (a US number
    // could be in any of four: none is recorded, and calling hours hold in all of them).
    const timezone = calleeTimeZone(e164, input.timezone, { country, ambiguous: 'none' }) ?? null;
    const agentId = input.agent_id ?? 'default';
    // The disclosure is read inside the insert; only an explicitly named agent must exist (the default falls back).
    if (input.agent_id && !(await this.o.agents.get(by.tenantId, agentId))) throw notFound(`agent ${agentId}`);
    const now = this.clock();
    // The calling-hours half of the gate is pure; its DND half is evaluated in the statement (dndAt = now), which
    // then overrides this outcome with 'blocked' (dnd) and creates no job.
    const gate = callingHoursGate(e164, now, { timezone: input.timezone, country });
    const scheduled = !gate.allowed && gate.reason === 'calling_hours' && gate.next_window_at;
    const id = newId('lead');
    const conversationId = newId('conv');
    // The engine's call for it, dispatched in the lead's statement unless the DND registry blocks the number there.
    const dial: LeadDial | undefined = gate.allowed
      ? this.o.calls().prepareDispatch?.(by.tenantId, { to: e164, lead_id: id, conversation_id: conversationId, context: { customer_name: input.name }, timezone })
      : undefined;
    const out = await this.#creates.push({
      id, tenant_id: by.tenantId, name: input.name, e164, source: input.source, domain: input.domain,
      timezone, conversation_id: conversationId,
      call_status: gate.allowed ? 'queued' : scheduled ? 'scheduled' : 'blocked',
      call_reason: gate.allowed ? null : gate.reason,
      scheduled_for: scheduled ? gate.next_window_at! : null, created_by: by.sub, created_at: now,
      disclosure: { agentId, fallbackText: DEFAULT_AGENT.disclosure_script, meta: { kind: 'disclosure', agent_id: agentId } },
      // Allowed: dialed in the statement (dial), or, with a call port that cannot, claimed by us now and dialed
      // right after commit; scheduled: pending until the window opens.
      job: gate.allowed ? { status: 'claimed', due: now, instanceId: this.o.instanceId }
        : scheduled ? { status: 'pending', due: gate.next_window_at!, instanceId: this.o.instanceId } : null,
      dial: dial?.item ?? null, retryAt: new Date(now.getTime() + RETRY_DELAY_MS),
      dndAt: now,
      dupSince: this.o.duplicateWindowSeconds > 0 ? new Date(now.getTime() - this.o.duplicateWindowSeconds * 1000) : null,
    });
    if (out.duplicate) return { lead: leadView(out.lead), duplicate: true };
    if (dial && out.call?.o_outcome === 'ok') dial.start(out.call); // stored with the lead: announce and drive it
    if (gate.allowed && out.lead.call_status === 'queued' && out.jobId !== null) {
      const dialed = await this.o.dispatcher.run({ id: out.jobId, tenant_id: by.tenantId, lead_id: out.lead.id }, out.lead);
      return { lead: leadView(dialed ?? out.lead), duplicate: false };
    }
    return { lead: leadView(out.lead), duplicate: false };
  }
}
