/** Per-tenant agents: disclosure script, qualify script and the runtime settings of spec §2.3. */
import type { Queryable } from '../db/db.js';

export interface QualifyStep {
  /** the extracted_data key this step fills: customer_name, intent, budget, scheduled_slot, or a custom key */
  field: string;
  /** what the agent asks */
  question: string;
}

export interface AgentRuntimeSettings {
  role: string;
  voice: string;
  language: string;
  /** 0 never lets the caller interrupt, 1 is most eager */
  interruption_sensitivity: number;
  /** silence after caller speech that ends the turn, ms */
  turn_detection_timeout_ms: number;
}

export interface Agent extends AgentRuntimeSettings {
  id: string;
  name: string;
  disclosure_script: string;
  qualify_script: QualifyStep[];
  created_at: string;
  updated_at: string;
}

export type AgentInput = Omit<Agent, 'id' | 'created_at' | 'updated_at'>;

const COLS = `id, name, disclosure_script, qualify_script, role, voice, language, interruption_sensitivity,
  turn_detection_timeout_ms, created_at, updated_at`;

export class AgentRepo {
  constructor(private db: Queryable) {}

  async list(tenantId: string): Promise<Agent[]> {
    return (await this.db.query<Agent>(`SELECT ${COLS} FROM agents WHERE tenant_id = $1 ORDER BY id`, [tenantId])).rows.map(normalise);
  }
  async get(tenantId: string, id: string): Promise<Agent | undefined> {
    const row = (await this.db.query<Agent>(`SELECT ${COLS} FROM agents WHERE tenant_id = $1 AND id = $2`, [tenantId, id])).rows[0];
    return row && normalise(row);
  }
  /** Insert or replace; returns the stored agent and whether it was new. */
  async put(tenantId: string, id: string, a: AgentInput): Promise<{ agent: Agent; created: boolean }> {
    const r = await this.db.query<Agent & { inserted: boolean }>(
      `INSERT INTO agents (tenant_id, id, name, disclosure_script, qualify_script, role, voice, language,
         interruption_sensitivity, turn_detection_timeout_ms)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)
       ON CONFLICT (tenant_id, id) DO UPDATE SET name = EXCLUDED.name, disclosure_script = EXCLUDED.disclosure_script,
         qualify_script = EXCLUDED.qualify_script, role = EXCLUDED.role, voice = EXCLUDED.voice, language = EXCLUDED.language,
         interruption_sensitivity = EXCLUDED.interruption_sensitivity,
         turn_detection_timeout_ms = EXCLUDED.turn_detection_timeout_ms, updated_at = now()
       RETURNING ${COLS}, (xmax = 0) AS inserted`,
      [tenantId, id, a.name, a.disclosure_script, JSON.stringify(a.qualify_script), a.role, a.voice, a.language,
        a.interruption_sensitivity, a.turn_detection_timeout_ms],
    );
    const { inserted, ...agent } = r.rows[0];
    return { agent: normalise(agent as Agent), created: inserted };
  }
}

function normalise(a: Agent): Agent {
  const ts = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  return {
    ...a,
    qualify_script: typeof a.qualify_script === 'string' ? JSON.parse(a.qualify_script) : a.qualify_script,
    interruption_sensitivity: Number(a.interruption_sensitivity),
    created_at: ts(a.created_at),
    updated_at: ts(a.updated_at),
  };
}

export const DEFAULT_AGENT: AgentInput = {
  name: 'Default qualifying agent',
  disclosure_script: 'Hello, this is an automated assistant calling on behalf of our team. This call is handled by an AI and may be recorded.',
  qualify_script: [
    { field: 'customer_name', question: 'May I have your name, please?' },
    { field: 'intent', question: 'What are you looking for today?' },
    { field: 'budget', question: 'What budget do you have in mind?' },
    { field: 'scheduled_slot', question: 'When would suit you for a site visit?' },
  ],
  role: 'sales qualifier',
  voice: 'alloy',
  language: 'en-US',
  interruption_sensitivity: 0.5,
  turn_detection_timeout_ms: 800,
};
