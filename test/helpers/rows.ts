/** Direct inserts into the shared tables, for hand-computed fixtures (KPIs, analytics, privacy, dialer). */
import type { Queryable } from '../../src/db/db.js';
import { newId } from '../../src/ids.js';

export interface CallFixture {
  tenant: string; to: string; status: string; agent_id?: string; created_at?: string; answered_at?: string | null;
  duration_seconds?: number | null; metrics?: unknown; extracted_data?: unknown; actions_triggered?: unknown;
  human_escalation?: boolean; recording_path?: string | null; campaign_id?: string | null; conversation_id?: string | null; lead_id?: string | null;
  transitions?: string[];
}

export async function insertCall(db: Queryable, f: CallFixture): Promise<string> {
  const id = newId('call');
  const j = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  await db.query(
    `INSERT INTO calls (id, tenant_id, agent_id, agent, to_number, language, status, created_at, answered_at, duration_seconds, metrics, extracted_data,
       actions_triggered, human_escalation, recording_path, campaign_id, conversation_id, lead_id)
     VALUES ($1,$2,$3,'{}'::jsonb,$4,'en-US',$5,COALESCE($6::timestamptz, now()),$7,$8,$9::jsonb,$10::jsonb,$11::jsonb,$12,$13,$14,$15,$16)`,
    [id, f.tenant, f.agent_id ?? 'default', f.to, f.status, f.created_at ?? null, f.answered_at ?? null, f.duration_seconds ?? null,
      j(f.metrics), j(f.extracted_data), j(f.actions_triggered), f.human_escalation ?? false, f.recording_path ?? null,
      f.campaign_id ?? null, f.conversation_id ?? null, f.lead_id ?? null]);
  for (const to of f.transitions ?? []) {
    await db.query('INSERT INTO call_transitions (call_id, tenant_id, to_status) VALUES ($1, $2, $3)', [id, f.tenant, to]);
  }
  return id;
}

export async function insertEvent(db: Queryable, tenant: string, callId: string, seq: number, type: string, payload: unknown, at?: string) {
  await db.query('INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at) VALUES ($1,$2,$3,$4,$5::jsonb,COALESCE($6::timestamptz, now()))',
    [callId, seq, tenant, type, JSON.stringify(payload), at ?? null]);
}

export async function insertConversation(db: Queryable, tenant: string, callId: string | null, messages: Array<{ text: string; at?: string }>): Promise<string> {
  const id = newId('conv');
  await db.query('INSERT INTO conversations (id, tenant_id, call_id) VALUES ($1,$2,$3)', [id, tenant, callId]);
  for (const m of messages) {
    await db.query(`INSERT INTO conversation_messages (conversation_id, tenant_id, role, text, at) VALUES ($1,$2,'caller',$3,COALESCE($4::timestamptz, now()))`,
      [id, tenant, m.text, m.at ?? null]);
  }
  return id;
}
