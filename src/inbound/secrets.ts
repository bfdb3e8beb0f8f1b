/**
 * Per-tenant inbound webhook secrets. An admin creates one (POST /v1/inbound-secrets) and gives it to the CRM or
 * calendar relay, which signs with it and names its id (X-Signature key=<id>): the event then belongs to that
 * secret's tenant, whatever the body says. Only the id, tenant and name are stored; the secret is
 * HMAC-SHA256(service secret, "inbound-webhook-secret:" + id), derived again to verify, so a copy of the database
 * holds none of them. Rotating: create a new one, move the sender to it, delete the old one. Changing the service
 * secret (SERVICE_JWT_SECRET) changes every inbound secret, as it ends every JWT.
 */
import { createHmac } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import { newId } from '../ids.js';

export interface InboundSecretRow { id: string; tenant_id: string; name: string; created_at: string; revoked_at: string | null }

const COLS = 'id, tenant_id, name, created_at, revoked_at';
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v == null ? null : String(v));
const row = (r: InboundSecretRow): InboundSecretRow => ({ ...r, created_at: iso(r.created_at)!, revoked_at: iso(r.revoked_at) });

export class InboundSecrets {
  constructor(private readonly db: Queryable, private readonly serviceSecret: () => string) {}

  /** The secret a sender signs with, for a secret id. */
  secretOf(id: string): string {
    return `whsec_${createHmac('sha256', this.serviceSecret()).update(`inbound-webhook-secret:${id}`).digest('base64url')}`;
  }

  async create(tenantId: string, name: string): Promise<InboundSecretRow & { secret: string }> {
    const r = await this.db.query<InboundSecretRow>(
      `INSERT INTO inbound_secrets (id, tenant_id, name) VALUES ($1, $2, $3) RETURNING ${COLS}`, [newId('isk'), tenantId, name]);
    const created = row(r.rows[0]);
    return { ...created, secret: this.secretOf(created.id) };
  }

  async list(tenantId: string): Promise<InboundSecretRow[]> {
    return (await this.db.query<InboundSecretRow>(`SELECT ${COLS} FROM inbound_secrets WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId])).rows.map(row);
  }

  async revoke(tenantId: string, id: string): Promise<boolean> {
    return (await this.db.query('UPDATE inbound_secrets SET revoked_at = now() WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL', [tenantId, id])).rowCount > 0;
  }

  /** The tenant of an active secret id, undefined for an unknown or revoked one. */
  async tenantOf(id: string): Promise<string | undefined> {
    return (await this.db.query<{ tenant_id: string }>('SELECT tenant_id FROM inbound_secrets WHERE id = $1 AND revoked_at IS NULL', [id])).rows[0]?.tenant_id;
  }
}
