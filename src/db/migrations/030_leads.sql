-- Do-not-disturb registry, consent log, leads, their scheduled calls, handoff audit trail.

-- Per-tenant do-not-disturb registry (TRAI/NDNC style): numbers here are never dialed without consent.
CREATE TABLE dnd_numbers (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  e164 text NOT NULL,
  source text NOT NULL DEFAULT 'import',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, e164)
);

-- Consent log: who consented, when, how, with what evidence. A consent lets a DND number through.
CREATE TABLE consents (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  e164 text NOT NULL,
  method text NOT NULL,
  consented_at timestamptz NOT NULL,
  evidence text,
  recorded_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX consents_tenant_e164 ON consents (tenant_id, e164, consented_at);
CREATE INDEX consents_tenant_created ON consents (tenant_id, created_at, id);

CREATE TABLE leads (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  e164 text NOT NULL,
  source text NOT NULL,
  domain text NOT NULL,
  timezone text,
  conversation_id text,
  call_id text,
  -- queued | dispatched | blocked | scheduled | failed
  call_status text NOT NULL,
  call_reason text,
  scheduled_for timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leads_tenant_created ON leads (tenant_id, created_at DESC, id);
CREATE INDEX leads_tenant_e164_created ON leads (tenant_id, e164, created_at DESC);

-- Durable schedule of lead calls gated by calling hours: claimed with FOR UPDATE SKIP LOCKED by any instance.
CREATE TABLE lead_call_jobs (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL,
  lead_id text NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
  due_at timestamptz NOT NULL,
  -- pending | claimed | done | failed
  status text NOT NULL DEFAULT 'pending',
  claimed_at timestamptz,
  claimed_by text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_call_jobs_due ON lead_call_jobs (due_at) WHERE status IN ('pending', 'claimed');

-- Every handoff move: who, when, from which state to which.
CREATE TABLE handoff_events (
  id bigserial PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  action text NOT NULL,
  from_state text,
  to_state text,
  by_sub text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX handoff_events_conv ON handoff_events (conversation_id, id);
CREATE INDEX conversations_tenant_handoff ON conversations (tenant_id, handoff_state, updated_at);
CREATE INDEX conversations_expires ON conversations (expires_at) WHERE tenant_id IS NULL;
