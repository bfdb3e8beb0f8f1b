/** Per-tenant agents: disclosure script, qualify script and the runtime settings of the contract's agent (src/calls/agent_settings.ts). */
import type { Queryable } from '../db/db.js';
import type { KnowledgeEntry } from '../dialog/knowledge.js';
import type { TransferMode } from '../adapters/types.js';

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

/** What a machine answer gets, and where a transfer to a human goes. */
export interface AgentCallHandling {
  /** answering machine: hang up (default), or leave voicemail_message after the beep */
  voicemail: 'hang_up' | 'leave_message';
  /** the message left on a machine; null = the disclosure */
  voicemail_message: string | null;
  /** E.164 number a transfer to a human dials for this agent; null = HUMAN_TRANSFER_NUMBER */
  transfer_number: string | null;
  /** cold (default): the caller goes straight through; warm: the human hears the call's summary first */
  transfer_mode: TransferMode;
}

export interface Agent extends AgentRuntimeSettings, AgentCallHandling {
  id: string;
  name: string;
  disclosure_script: string;
  /** as written: ordered {field, question} steps, or text (instructions and questions in prose) */
  qualify_script: QualifyStep[] | string;
  /** what the scripted engine asks: the steps given, or those derived from the text */
  qualify_steps: QualifyStep[];
  /** what the agent answers callers' questions from (question/answer pairs or plain facts) */
  knowledge: KnowledgeEntry[];
  created_at: string;
  updated_at: string;
}

/** What PUT stores: the script as written and the steps the scripted engine walks (derived from text by the route). */
export type AgentInput = Omit<Agent, 'id' | 'created_at' | 'updated_at'>;
/** A partial update: only the fields given change (the script's text and steps always together). */
export type AgentPatch = Partial<AgentInput>;

/** An agent as the scripted engine and the call snapshot use it: steps only. */
export type ScriptedAgent = Omit<AgentInput, 'qualify_script' | 'qualify_steps' | keyof AgentCallHandling> & Partial<AgentCallHandling>
  & { qualify_script: QualifyStep[] };

interface AgentRow extends AgentRuntimeSettings, AgentCallHandling {
  id: string; name: string; disclosure_script: string; qualify_script: QualifyStep[] | string; qualify_text: string | null;
  knowledge: KnowledgeEntry[] | string; created_at: unknown; updated_at: unknown;
}

const COLS = `id, name, disclosure_script, qualify_script, qualify_text, role, voice, language, interruption_sensitivity,
  turn_detection_timeout_ms, voicemail, voicemail_message, transfer_number, transfer_mode, knowledge, created_at, updated_at`;

export class AgentRepo {
  constructor(private db: Queryable) {}

  async list(tenantId: string): Promise<Agent[]> {
    return (await this.db.query<AgentRow>(`SELECT ${COLS} FROM agents WHERE tenant_id = $1 ORDER BY id`, [tenantId])).rows.map(toAgent);
  }
  async get(tenantId: string, id: string): Promise<Agent | undefined> {
    const row = (await this.db.query<AgentRow>(`SELECT ${COLS} FROM agents WHERE tenant_id = $1 AND id = $2`, [tenantId, id])).rows[0];
    return row && toAgent(row);
  }
  /** Insert or replace; returns the stored agent and whether it was new. */
  async put(tenantId: string, id: string, a: AgentInput | ScriptedAgent): Promise<{ agent: Agent; created: boolean }> {
    const { steps, text } = scriptColumns(a);
    const r = await this.db.query<AgentRow & { inserted: boolean }>(
      `INSERT INTO agents (tenant_id, id, name, disclosure_script, qualify_script, qualify_text, role, voice, language,
         interruption_sensitivity, turn_detection_timeout_ms, voicemail, voicemail_message, transfer_number, knowledge, transfer_mode)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16)
       ON CONFLICT (tenant_id, id) DO UPDATE SET name = EXCLUDED.name, disclosure_script = EXCLUDED.disclosure_script,
         qualify_script = EXCLUDED.qualify_script, qualify_text = EXCLUDED.qualify_text, role = EXCLUDED.role,
         voice = EXCLUDED.voice, language = EXCLUDED.language, interruption_sensitivity = EXCLUDED.interruption_sensitivity,
         turn_detection_timeout_ms = EXCLUDED.turn_detection_timeout_ms, voicemail = EXCLUDED.voicemail,
         voicemail_message = EXCLUDED.voicemail_message, transfer_number = EXCLUDED.transfer_number,
         transfer_mode = EXCLUDED.transfer_mode, knowledge = EXCLUDED.knowledge, updated_at = now()
       RETURNING ${COLS}, (xmax = 0) AS inserted`,
      [tenantId, id, a.name, a.disclosure_script, JSON.stringify(steps), text, a.role, a.voice, a.language,
        a.interruption_sensitivity, a.turn_detection_timeout_ms, a.voicemail ?? 'hang_up', a.voicemail_message ?? null, a.transfer_number ?? null,
        JSON.stringify(a.knowledge ?? []), a.transfer_mode ?? 'cold'],
    );
    const { inserted, ...row } = r.rows[0];
    return { agent: toAgent(row), created: inserted };
  }

  /** Changes only the given fields of an existing agent (one statement); undefined when there is no such agent. */
  async patch(tenantId: string, id: string, p: AgentPatch): Promise<Agent | undefined> {
    const script = p.qualify_script !== undefined ? scriptColumns(p as Pick<AgentInput, 'qualify_script' | 'qualify_steps'>) : undefined;
    const r = await this.db.query<AgentRow>(
      `UPDATE agents SET name = COALESCE($3, name), disclosure_script = COALESCE($4, disclosure_script),
         qualify_script = CASE WHEN $5::boolean THEN $6::jsonb ELSE qualify_script END,
         qualify_text = CASE WHEN $5::boolean THEN $7 ELSE qualify_text END,
         role = COALESCE($8, role), voice = COALESCE($9, voice), language = COALESCE($10, language),
         interruption_sensitivity = COALESCE($11, interruption_sensitivity),
         turn_detection_timeout_ms = COALESCE($12, turn_detection_timeout_ms), voicemail = COALESCE($13, voicemail),
         voicemail_message = CASE WHEN $14::boolean THEN $15 ELSE voicemail_message END,
         transfer_number = CASE WHEN $16::boolean THEN $17 ELSE transfer_number END,
         knowledge = COALESCE($18::jsonb, knowledge), transfer_mode = COALESCE($19, transfer_mode), updated_at = now()
       WHERE tenant_id = $1 AND id = $2 RETURNING ${COLS}`,
      [tenantId, id, p.name ?? null, p.disclosure_script ?? null, script !== undefined, script ? JSON.stringify(script.steps) : null,
        script?.text ?? null, p.role ?? null, p.voice ?? null, p.language ?? null, p.interruption_sensitivity ?? null,
        p.turn_detection_timeout_ms ?? null, p.voicemail ?? null,
        // null clears these two; left out leaves them
        p.voicemail_message !== undefined, p.voicemail_message ?? null, p.transfer_number !== undefined, p.transfer_number ?? null,
        p.knowledge !== undefined ? JSON.stringify(p.knowledge) : null, p.transfer_mode ?? null],
    );
    return r.rows[0] && toAgent(r.rows[0]);
  }
}

/** The stored pair: the steps (jsonb) and, for a text script, the text as written. */
function scriptColumns(a: { qualify_script: QualifyStep[] | string; qualify_steps?: QualifyStep[] }): { steps: QualifyStep[]; text: string | null } {
  if (typeof a.qualify_script === 'string') return { steps: a.qualify_steps ?? [], text: a.qualify_script };
  return { steps: a.qualify_script, text: null };
}

function toAgent(a: AgentRow): Agent {
  const ts = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  const steps = typeof a.qualify_script === 'string' ? JSON.parse(a.qualify_script) as QualifyStep[] : a.qualify_script;
  return {
    id: a.id, name: a.name, disclosure_script: a.disclosure_script,
    qualify_script: a.qualify_text ?? steps, qualify_steps: steps,
    role: a.role, voice: a.voice, language: a.language,
    interruption_sensitivity: Number(a.interruption_sensitivity), turn_detection_timeout_ms: a.turn_detection_timeout_ms,
    voicemail: a.voicemail, voicemail_message: a.voicemail_message, transfer_number: a.transfer_number,
    transfer_mode: a.transfer_mode ?? 'cold',
    knowledge: typeof a.knowledge === 'string' ? JSON.parse(a.knowledge) as KnowledgeEntry[] : a.knowledge ?? [],
    created_at: ts(a.created_at), updated_at: ts(a.updated_at),
  };
}

/** The agent every tenant starts with; its runtime settings are also what PUT gives a field left out. */
export const DEFAULT_AGENT: ScriptedAgent = {
  name: 'Default qualifying agent',
  disclosure_script: 'Hello, this is an automated assistant for our team. You are talking with an AI, and this conversation may be recorded.',
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
  knowledge: [],
};

/** The steps an agent's scripted engine walks (a text script's derived steps; DEFAULT_AGENT's own). */
export const stepsOf = (a: Agent | ScriptedAgent): QualifyStep[] => ('qualify_steps' in a ? a.qualify_steps : a.qualify_script);
