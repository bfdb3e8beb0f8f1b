-- Inbound CRM and calendar webhooks: processed event ids (idempotent redelivery) and calendar bookings.
CREATE TABLE inbound_webhook_events (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- crm | calendar
  source text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  -- SHA-256 hex of the event's E.164 number, if any (privacy erase finds it; the number is not stored)
  subject_hash text,
  effect text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, source, event_id)
);

CREATE TABLE calendar_bookings (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- the calendar provider's booking id
  booking_id text NOT NULL,
  call_id text,
  lead_id text,
  phone text,
  -- booked | cancelled
  status text NOT NULL,
  starts_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, booking_id)
);
CREATE INDEX calendar_bookings_call ON calendar_bookings (tenant_id, call_id);
