-- Exactly one call.completed per call, whichever instance ends it: the conditional status move already lets
-- one end win; this index makes a second outbox row for the same call fail (and roll back the end that wrote
-- it) instead of sending the receiver two final webhooks. Rows stored before it (none are expected) keep the
-- oldest per call.
DELETE FROM webhook_outbox w
WHERE w.event_type = 'call.completed'
  AND EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.call_id = w.call_id AND o.event_type = 'call.completed'
    AND (o.created_at, o.id) < (w.created_at, w.id));
CREATE UNIQUE INDEX webhook_outbox_one_call_completed ON webhook_outbox (call_id) WHERE event_type = 'call.completed';
