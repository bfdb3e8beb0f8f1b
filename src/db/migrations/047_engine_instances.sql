-- Call engines alive (src/calls/instances.ts). A call is driven by the instance that dispatched it
-- (calls.instance_id); when that process dies its live calls would stay queued/dialing/ringing/in_progress for ever,
-- holding their tenant's concurrency slots and their campaign contacts. Each engine renews its row here; any engine
-- ends the live calls of an instance whose row is older than the lease (failed, ended_reason instance_lost).
CREATE TABLE engine_instances (
  id text PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);
