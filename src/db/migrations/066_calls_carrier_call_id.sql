-- A carrier callback landing on an instance that does not run the call finds the call (and so its owner) by the
-- carrier's id of the call when the callback names no call id of ours (an inbound call's status callbacks).
CREATE INDEX IF NOT EXISTS calls_carrier_call_id ON calls (carrier_call_id) WHERE carrier_call_id IS NOT NULL;
