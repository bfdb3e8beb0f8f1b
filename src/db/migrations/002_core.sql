-- Tables shared by several areas (calls, streaming, business). Area-specific tables live in their own ranges.
CREATE TABLE calls (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  agent_id text,
  -- snapshot of the agent (scripts + runtime settings) the call runs with, so later edits do not change it
  agent jsonb NOT NULL,
  to_number text NOT NULL,
  from_number text,
  language text NOT NULL,
  context jsonb NOT NULL DEFAULT '{}',
  tools jsonb NOT NULL DEFAULT '[]',
  webhook_url text,
  status text NOT NULL,
  ended_reason text,
  conversation_id text,
  lead_id text,
  campaign_id text,
  carrier_call_id text,
  -- id of the process that holds the carrier media socket
  instance_id text,
  scenario text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  answered_at timestamptz,
  ended_at timestamptz,
  duration_seconds integer,
  metrics jsonb,
  extracted_data jsonb,
  actions_triggered jsonb,
  human_escalation boolean NOT NULL DEFAULT false,
  recording_path text
);
CREATE INDEX calls_tenant_created ON calls (tenant_id, created_at DESC);
CREATE INDEX calls_tenant_status ON calls (tenant_id, status);

-- Every status change, timestamped (the lifecycle's audit trail).
CREATE TABLE call_transitions (
  id bigserial PRIMARY KEY,
  call_id text NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  from_status text,
  to_status text NOT NULL,
  reason text,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX call_transitions_call ON call_transitions (call_id, id);

-- Live-stream items, stored before they are published so late listeners can catch up by seq.
CREATE TABLE call_events (
  call_id text NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  tenant_id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (call_id, seq)
);

CREATE TABLE conversations (
  id text PRIMARY KEY,
  -- NULL for anonymous demo conversations (public routes without a JWT)
  tenant_id text REFERENCES tenants(id) ON DELETE CASCADE,
  domain text,
  -- active | handoff | closed
  state text NOT NULL DEFAULT 'active',
  -- waiting | accepted | resolved, while or after state = handoff
  handoff_state text,
  handoff_reason text,
  accepted_by text,
  call_id text,
  lead_id text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_tenant_state ON conversations (tenant_id, state);

CREATE TABLE conversation_messages (
  id bigserial PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  tenant_id text,
  -- agent | caller | operator | system
  role text NOT NULL,
  text text NOT NULL,
  meta jsonb NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_messages_conv ON conversation_messages (conversation_id, id);
