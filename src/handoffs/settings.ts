/** A tenant's handoff settings for calls (table tenant_handoff_settings; the defaults when never set). */
import type { Queryable } from '../db/db.js';

export interface HandoffSettings {
  /** how long a caller waits on hold for an operator before the call-back offer, s; 0: no hold (the call ends 'escalated') */
  hold_seconds: number;
  /** how long after the call a call-back the caller accepted is dialed, min (calling hours still apply then) */
  callback_delay_minutes: number;
}

export const DEFAULT_HANDOFF_SETTINGS: HandoffSettings = { hold_seconds: 60, callback_delay_minutes: 15 };

export async function getHandoffSettings(q: Queryable, tenantId: string): Promise<HandoffSettings> {
  const r = await q.query<HandoffSettings>('SELECT hold_seconds, callback_delay_minutes FROM tenant_handoff_settings WHERE tenant_id = $1', [tenantId]);
  return r.rows[0] ?? { ...DEFAULT_HANDOFF_SETTINGS };
}

/** Stores the fields given; the others keep their current (or default) value. */
export async function putHandoffSettings(q: Queryable, tenantId: string, by: string, patch: Partial<HandoffSettings>): Promise<HandoffSettings> {
  const next = { ...(await getHandoffSettings(q, tenantId)), ...patch };
  const r = await q.query<HandoffSettings>(
    `INSERT INTO tenant_handoff_settings (tenant_id, hold_seconds, callback_delay_minutes, updated_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id) DO UPDATE SET hold_seconds = EXCLUDED.hold_seconds, callback_delay_minutes = EXCLUDED.callback_delay_minutes,
       updated_by = EXCLUDED.updated_by, updated_at = now()
     RETURNING hold_seconds, callback_delay_minutes`, [tenantId, next.hold_seconds, next.callback_delay_minutes, by]);
  return r.rows[0];
}
