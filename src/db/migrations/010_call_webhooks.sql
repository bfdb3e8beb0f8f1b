-- Call engine (010-019): durable call.completed delivery (transactional outbox) and its per-attempt log.
-- A row is written in the same transaction as the call's final outcome; workers on any instance claim due rows
-- with FOR UPDATE SKIP LOCKED and a lease (locked_until), so a crashed worker's claim expires and is retried.
CREATE TABLE webhook_outbox (
  -- the Standard Webhooks webhook-id (msg_…): the same on every retry, receivers dedupe on it
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  call_id text NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
  url text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  -- pending | delivered | failed (gave up after the last attempt)
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_call ON webhook_outbox (call_id);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhook_outbox(id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  call_id text NOT NULL,
  attempt integer NOT NULL,
  status_code integer,
  error text,
  duration_ms integer,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_call ON webhook_attempts (call_id, id);

-- Per-tenant signing secret of outbound webhooks (whsec_<base64>), generated on first use, readable by admins.
CREATE TABLE tenant_webhook_secrets (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
