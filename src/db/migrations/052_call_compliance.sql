-- Compliance of outbound calls. A call placed past the do-not-disturb and calling-hours gates because it is
-- transactional (where regulation allows: a service call about the callee's own transaction) carries who marked
-- it, why and when in calls.compliance, and the mark is audited in compliance_audit in the same statement that
-- stores the call (dispatch_calls). The audit keeps the SHA-256 hex of the number, not the number: it is the proof
-- that the exempt call was made lawfully, so it outlives the call and an erasure of the callee (privacy registry).
ALTER TABLE calls ADD COLUMN compliance jsonb;

CREATE TABLE compliance_audit (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- transactional_call
  action text NOT NULL,
  call_id text NOT NULL,
  subject_hash text NOT NULL,
  reason text NOT NULL,
  -- the principal that marked it (user id or API key id) and its kind (user | api_key)
  actor text NOT NULL,
  actor_kind text NOT NULL,
  -- the gates the mark lifted, e.g. {dnd, calling_hours}
  gates_lifted text[] NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX compliance_audit_tenant_at ON compliance_audit (tenant_id, at DESC);
