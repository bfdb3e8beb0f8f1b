/**
 * The keypad setting of an agent (table agent_keypads): what a key the caller presses does on that agent's calls.
 * A key not listed is the caller's input to the dialog. Frozen into the call's agent snapshot at dispatch.
 */
import { z } from 'zod';
import type { Queryable } from '../db/db.js';
import { KEY_ACTIONS, type Keypad } from './types.js';

/** {"0": "operator", "9": "opt_out"}: keys 0-9, * and #, each to one action */
export const KeypadBody = z.record(z.string().regex(/^[0-9*#]$/, 'a key: 0-9, * or #'), z.enum(KEY_ACTIONS))
  .refine((k) => Object.keys(k).length <= 12, 'at most 12 keys');

export class KeypadRepo {
  constructor(private readonly db: Queryable) {}

  async get(tenantId: string, agentId: string): Promise<Keypad | undefined> {
    const r = await this.db.query<{ keys: Keypad | string }>('SELECT keys FROM agent_keypads WHERE tenant_id = $1 AND agent_id = $2', [tenantId, agentId]);
    const k = r.rows[0]?.keys;
    return typeof k === 'string' ? JSON.parse(k) as Keypad : k;
  }

  /** undefined when the tenant has no such agent */
  async put(tenantId: string, agentId: string, keys: Keypad): Promise<Keypad | undefined> {
    const r = await this.db.query<{ keys: Keypad | string }>(
      `INSERT INTO agent_keypads (tenant_id, agent_id, keys) SELECT a.tenant_id, a.id, $3::jsonb FROM agents a WHERE a.tenant_id = $1 AND a.id = $2
       ON CONFLICT (tenant_id, agent_id) DO UPDATE SET keys = EXCLUDED.keys, updated_at = now() RETURNING keys`,
      [tenantId, agentId, JSON.stringify(keys)]);
    const k = r.rows[0]?.keys;
    return typeof k === 'string' ? JSON.parse(k) as Keypad : k;
  }
}
