/** The lead gate (src/leads/gates.ts) as the dialer's CallGate: DND without consent blocks, outside the callee's hours schedules. */
import type { Queryable } from '../db/db.js';
import { checkCallGates } from '../leads/gates.js';
import type { CallGate } from './ports.js';

export function leadsGate(db: Queryable): CallGate {
  return async (tenantId, e164, now) => {
    const g = await checkCallGates(db, tenantId, e164, now);
    if (g.allowed) return { action: 'allow' };
    if (g.reason === 'calling_hours' && g.next_window_at) return { action: 'schedule', at: new Date(g.next_window_at), reason: 'calling_hours' };
    return { action: 'block', reason: g.reason };
  };
}
