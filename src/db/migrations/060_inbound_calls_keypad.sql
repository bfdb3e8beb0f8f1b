-- Calls that come in, and the keypad.
-- A call's direction, and our number it used: for an inbound call the number the lead dialed. to_number stays the
-- lead's number either way (the callee of an outbound call, the caller of an inbound one): privacy, do-not-disturb,
-- the callee's zone and the lead's history all key on it.
ALTER TABLE calls ADD COLUMN direction text NOT NULL DEFAULT 'outbound';
ALTER TABLE calls ADD COLUMN line_number text;

-- Where a call to one of our numbers goes: the tenant that owns the number, its agent and webhook (NULL: the
-- tenant's inbound defaults).
CREATE TABLE inbound_numbers (
  line text PRIMARY KEY, -- our number (E.164)
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  agent_id text,
  webhook_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbound_numbers_tenant ON inbound_numbers (tenant_id, line);

-- A tenant's inbound agent and webhook, for its numbers that name none (NULL agent: the 'default' agent).
CREATE TABLE inbound_defaults (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  agent_id text,
  webhook_url text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- What each key of the phone's keypad does on an agent's calls (digit -> action); keys not listed are the
-- caller's input to the dialog.
CREATE TABLE agent_keypads (
  tenant_id text NOT NULL,
  agent_id text NOT NULL,
  keys jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, agent_id),
  FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, id) ON DELETE CASCADE
);
