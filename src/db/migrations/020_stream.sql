-- Per-call live-stream counter: the last seq handed out. Upserting this row allocates the next seq under its
-- row lock, so concurrent publishers (threads or instances) never get the same seq and the events of one call
-- are committed in seq order (a later seq is only allocated once the earlier insert has committed).
CREATE TABLE call_event_counters (
  call_id text PRIMARY KEY REFERENCES calls(id) ON DELETE CASCADE,
  last_seq integer NOT NULL
);
