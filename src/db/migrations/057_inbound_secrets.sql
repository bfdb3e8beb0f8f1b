-- Per-tenant inbound webhook secrets: a signature made with one names its tenant (X-Signature key=<id>). The
-- secret itself is not stored: it is derived from the service secret and the id (src/inbound/secrets.ts).
CREATE TABLE inbound_secrets (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX inbound_secrets_tenant ON inbound_secrets (tenant_id);
