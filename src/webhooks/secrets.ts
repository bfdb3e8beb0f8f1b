/**
 * Signing secrets of outbound webhooks: one per tenant, generated on first use (whsec_ + 24 random bytes in
 * base64, the Standard Webhooks format), readable by the tenant's admins at GET /v1/webhooks/secret.
 * Per tenant rather than SERVICE_WEBHOOK_SECRET: that setting verifies INBOUND webhooks (src/inbound), and one
 * shared key would let any tenant's receiver forge another tenant's events.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';

export class WebhookSecrets {
  readonly #cache = new Map<string, string>();
  constructor(private readonly db: Queryable) {}

  async forTenant(tenantId: string): Promise<string> {
    const cached = this.#cache.get(tenantId);
    if (cached) return cached;
    await this.db.query(
      'INSERT INTO tenant_webhook_secrets (tenant_id, secret) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING',
      [tenantId, `whsec_${randomBytes(24).toString('base64')}`]);
    const r = await this.db.query<{ secret: string }>('SELECT secret FROM tenant_webhook_secrets WHERE tenant_id = $1', [tenantId]);
    this.#cache.set(tenantId, r.rows[0].secret);
    return r.rows[0].secret;
  }
}
