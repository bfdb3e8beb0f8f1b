/**
 * POST /v1/leads (seed §4 rules 1-2): store the lead, open a conversation whose first agent message is the AI
 * disclosure, then dial through the DND / calling-hours gate. One transaction per lead, serialised per
 * tenant+number by an advisory lock so two simultaneous copies of a lead make one lead and one call.
 */
import type { Db, Queryable } from '../db/db.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { AgentRepo } from '../repos/agents.js';
import { DEFAULT_AGENT } from '../repos/agents.js';
import type { LeadDispatcher } from './dispatcher.js';
import { callingHoursGate } from './gates.js';
import { LeadRepo, type LeadRow } from './lead_repo.js';
import { isTimeZone, toE164 } from './phone.js';
import type { LeadCallView } from './types.js';

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

  constructor(private readonly o: {
    db: Db; agents: AgentRepo; dispatcher: LeadDispatcher; instanceId: string;
    defaultRegion: string; duplicateWindowSeconds: number;
  }) {
    this.repo = new LeadRepo(o.db);
  }

  async create(by: { tenantId: string; sub: string }, input: LeadInput): Promise<{ lead: LeadView; duplicate: boolean }> {
    const e164 = toE164(input.phone, this.o.defaultRegion);
    if (input.timezone && !isTimeZone(input.timezone)) {
      throw new ApiError('validation_failed', 'body.timezone: not an IANA time zone', { fields: [{ path: 'body.timezone', message: 'not an IANA time zone' }] });
    }
    const agentId = input.agent_id ?? 'default';
    // The disclosure is read inside the insert; only an explicitly named agent must exist (the default falls back).
    if (input.agent_id && !(await this.o.agents.get(by.tenantId, agentId))) throw notFound(`agent ${agentId}`);
    const now = this.clock();
    const work = async (q: Queryable) => {
      if (this.o.duplicateWindowSeconds > 0) {
        // Serialises leads for one number (only duplicate detection needs it): the second sees the first.
        await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`lead:${by.tenantId}:${e164}`]);
        const dup = await this.repo.recent(q, by.tenantId, e164, new Date(now.getTime() - this.o.duplicateWindowSeconds * 1000));
        if (dup) return { lead: dup, duplicate: true, jobId: null };
      }
      // The calling-hours half of the gate is pure; its DND half is evaluated inside the insert (dndAt = now),
      // which then overrides this outcome with 'blocked' (dnd) and creates no job.
      const gate = callingHoursGate(e164, now, { timezone: input.timezone });
      const scheduled = !gate.allowed && gate.reason === 'calling_hours' && gate.next_window_at;
      const { lead, jobId } = await this.repo.insertWithConversation(q, {
        id: newId('lead'), tenant_id: by.tenantId, name: input.name, e164, source: input.source, domain: input.domain,
        timezone: input.timezone ?? null, conversation_id: newId('conv'),
        call_status: gate.allowed ? 'queued' : scheduled ? 'scheduled' : 'blocked',
        call_reason: gate.allowed ? null : gate.reason,
        scheduled_for: scheduled ? gate.next_window_at! : null, created_by: by.sub,
      }, now, { agentId, fallbackText: DEFAULT_AGENT.disclosure_script, meta: { kind: 'disclosure', agent_id: agentId } },
      // Allowed: claimed by us now and dialed right after commit; scheduled: pending until the window opens.
      gate.allowed ? { status: 'claimed', due: now, instanceId: this.o.instanceId }
        : scheduled ? { status: 'pending', due: gate.next_window_at!, instanceId: this.o.instanceId } : null,
      now, this.o.db.kind === 'postgres');
      return { lead, duplicate: false, jobId: gate.allowed && lead.call_status === 'queued' ? jobId : null };
    };
    // The lock and the duplicate check need a transaction; without them the insert is one atomic statement.
    const out = this.o.duplicateWindowSeconds > 0 ? await this.o.db.transaction(work) : await work(this.o.db);
    if (out.jobId !== null) {
      const dialed = await this.o.dispatcher.run({ id: out.jobId, tenant_id: by.tenantId, lead_id: out.lead.id }, out.lead);
      return { lead: leadView(dialed ?? out.lead), duplicate: false };
    }
    return { lead: leadView(out.lead), duplicate: out.duplicate };
  }
}
