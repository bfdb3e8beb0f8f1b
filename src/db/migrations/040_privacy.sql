-- Privacy: per-tenant transcript retention and the audit trail of exports, erasures and expiries.
-- The audit keeps only the SHA-256 hex of the E.164 subject, never the number itself.
CREATE TABLE tenant_privacy_settings (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  transcript_retention_days integer NOT NULL CHECK (transcript_retention_days BETWEEN 1 AND 3650),
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE privacy_audit (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- export | erase | expire | retention
  action text NOT NULL,
  subject_hash text,
  -- rows touched per table, e.g. {"calls": 2, "call_events": 14, "recording_files": 1}
  counts jsonb NOT NULL DEFAULT '{}',
  actor text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX privacy_audit_tenant_at ON privacy_audit (tenant_id, at DESC);
