-- A call's transitions are its status items. Every status move stored two rows of the same fact: a call_transitions
-- row (from, to, reason, at) and, in the same statement, its live status item in call_events (to, ended_reason,
-- at, seq); the transition row cost a heap row, two index entries, a foreign-key check and a sequence value,
-- three times per call (bench/README.md, "Write batching"). From here on the status item also carries the move's
-- origin and reason (from_status, reason: columns, not payload, so the live stream is unchanged) and is marked
-- is_transition.
-- call_transitions keeps the transitions stored before this migration and gets no new rows; the view
-- call_lifecycle reads both (legacy rows first, era 0, in id order; then status items, era 1, in seq order), so a
-- call dispatched before the upgrade and moved after it still shows its whole lifecycle. Readers use the view.
-- Status items written before this migration are not transitions (is_transition false): their transitions are the
-- legacy rows.
ALTER TABLE call_events ADD COLUMN is_transition boolean NOT NULL DEFAULT false;
ALTER TABLE call_events ADD COLUMN from_status text;
ALTER TABLE call_events ADD COLUMN reason text;
COMMENT ON TABLE call_transitions IS 'transitions stored before migration 049 (no new rows: status items in call_events carry them since); read through the view call_lifecycle';

CREATE VIEW call_lifecycle AS
  SELECT t.call_id, t.tenant_id, t.from_status, t.to_status, t.reason, t.at, 0 AS era, t.id AS pos FROM call_transitions t
  UNION ALL
  SELECT e.call_id, e.tenant_id, e.from_status, e.payload->>'status', e.reason, e.at, 1, e.seq::bigint FROM call_events e
  WHERE e.is_transition;
