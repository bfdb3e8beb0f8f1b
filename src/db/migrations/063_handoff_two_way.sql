-- Two-way handoff: the state after an operator accepts says where the conversation stands ('with_operator'
-- instead of 'accepted'), and the handoff keeps its own times (queued, taken, ended) for the queue's waiting time
-- and the call's completion webhook. A resolved handoff may hand the conversation back to the agent (state
-- 'active' again) or close it; a later request for a human opens a new handoff on the same conversation.
UPDATE conversations SET handoff_state = 'with_operator' WHERE handoff_state = 'accepted';
UPDATE handoff_events SET from_state = 'with_operator' WHERE from_state = 'accepted';
UPDATE handoff_events SET to_state = 'with_operator' WHERE to_state = 'accepted';
ALTER TABLE conversations ADD COLUMN handoff_queued_at timestamptz;
ALTER TABLE conversations ADD COLUMN handoff_accepted_at timestamptz;
ALTER TABLE conversations ADD COLUMN handoff_ended_at timestamptz;
UPDATE conversations SET handoff_queued_at = created_at WHERE handoff_state IS NOT NULL;
