/** Fixtures for business tests: extra users and tenants, a recording call port when the engine is not wired. */
import { hashPassword } from '../../src/auth/passwords.js';
import type { Role } from '../../src/auth/tokens.js';
import type { LeadCallPort, LeadDispatchInput } from '../../src/leads/types.js';
import { login } from './server.js';

type Srv = { baseUrl: string; services: any };

/** Creates (or updates) a user in `tenantId` and returns a JWT for it. */
export async function userToken(srv: Srv, tenantId: string, email: string, role: Role): Promise<string> {
  await srv.services.repos.tenants.ensureTenant(tenantId, tenantId);
  await srv.services.repos.tenants.upsertUser({ tenantId, email, passwordHash: await hashPassword('password-123456'), role });
  return login(srv.baseUrl, email, 'password-123456');
}

/**
 * Replaces the call engine behind leads with a recorder (real simulated calls would run full conversations in
 * the background of every test); `real` is the engine's port, for the test that goes through it. A lead dialed
 * at once goes the production way, its call stored in the lead's own statement (the engine's prepareDispatch,
 * migration 045), but the stored call is recorded instead of driven: it stays 'queued'. The scheduler's
 * separate dispatch, like the engine's (dispatch_calls, migration 013), marks the lead dispatched, links its
 * conversation and closes its job; it stores no call.
 */
type Dialed = { tenantId: string; input: Omit<LeadDispatchInput, 'lead_job_id'> & { lead_job_id?: number } };
export function recordingCalls(srv: Srv): { dispatched: Dialed[]; real: LeadCallPort; recorder: LeadCallPort } {
  const dispatched: Dialed[] = [];
  let n = 0;
  const recorder: LeadCallPort = {
    async dispatch(tenantId, input) {
      dispatched.push({ tenantId, input });
      const id = `call_${(++n).toString(16).padStart(24, '0')}`;
      await markLeadDispatched(srv.services.db, tenantId, input, id);
      return { id, status: 'queued' };
    },
  };
  const real = srv.services.leads.calls;
  if (real.prepareDispatch) {
    const prepare = real.prepareDispatch.bind(real);
    Object.assign(recorder, {
      maxConcurrentPerTenant: real.maxConcurrentPerTenant,
      prepareDispatch(tenantId: string, input: Omit<LeadDispatchInput, 'lead_job_id'>) {
        const dial = prepare(tenantId, input);
        return { item: dial.item, start: () => { dispatched.push({ tenantId, input }); return { id: dial.item.id, status: 'queued' }; } };
      },
    });
  }
  srv.services.leads.calls = recorder;
  return { dispatched, real, recorder };
}

/** A fixed clock for gates, schedules and expiry. */
export function setClock(srv: Srv, iso: string): void {
  const at = () => new Date(iso);
  srv.services.leads.leads.clock = at;
  srv.services.conversations.clock = at;
}

/** What the engine's dispatch does to a lead's rows (dispatch_calls, migration 013), for fake call ports. */
export async function markLeadDispatched(db: { query: (sql: string, args: unknown[]) => Promise<unknown> }, tenantId: string, input: LeadDispatchInput, callId: string): Promise<void> {
  await db.query(
    `WITH l AS (UPDATE leads SET call_id = $3, call_status = 'dispatched', call_reason = NULL, scheduled_for = NULL WHERE tenant_id = $1 AND id = $2),
     c AS (UPDATE conversations SET call_id = $3, updated_at = now() WHERE tenant_id = $1 AND id = $4)
     UPDATE lead_call_jobs SET status = 'done', last_error = NULL WHERE id = $5`, [tenantId, input.lead_id, callId, input.conversation_id, input.lead_job_id]);
}
