-- A tenant's handoff settings for calls: how long a caller who asked for a person waits on hold for an operator
-- before being offered a call-back (0: no hold, the call ends as 'escalated'), and when that call-back is dialed.
CREATE TABLE tenant_handoff_settings (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  hold_seconds integer NOT NULL DEFAULT 60 CHECK (hold_seconds BETWEEN 0 AND 3600),
  callback_delay_minutes integer NOT NULL DEFAULT 15 CHECK (callback_delay_minutes BETWEEN 1 AND 10080),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
