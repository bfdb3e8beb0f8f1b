-- Campaigns and their contacts. The dialer is table-driven: any instance may claim contacts
-- (FOR UPDATE SKIP LOCKED) under the campaign row lock, so concurrency is counted from the database.
CREATE TABLE campaigns (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  agent_id text NOT NULL,
  -- draft | running | paused | completed | canceled
  state text NOT NULL DEFAULT 'draft',
  -- local wall-clock window "HH:MM" in the campaign's IANA time zone; end is exclusive
  window_start text NOT NULL,
  window_end text NOT NULL,
  timezone text NOT NULL,
  max_concurrency integer NOT NULL,
  -- {max_attempts, backoff_minutes, on: ['no_answer','busy']}
  retry jsonb NOT NULL,
  tools jsonb,
  webhook_url text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX campaigns_tenant_created ON campaigns (tenant_id, created_at DESC);
CREATE INDEX campaigns_state ON campaigns (state);

CREATE TABLE campaign_contacts (
  id text PRIMARY KEY,
  campaign_id text NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  phone text NOT NULL,
  context jsonb NOT NULL DEFAULT '{}',
  -- pending | dialing | retry | done | failed | blocked | canceled
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  -- when a retry (or a gate-scheduled contact) becomes due
  next_attempt_at timestamptz,
  call_id text,
  last_outcome text,
  claimed_by text,
  claimed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (campaign_id, phone)
);
CREATE INDEX campaign_contacts_due ON campaign_contacts (campaign_id, state, next_attempt_at);
CREATE INDEX campaign_contacts_call ON campaign_contacts (call_id);
