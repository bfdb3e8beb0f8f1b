-- No query reads conversations by (tenant_id, state): they are read by id, by handoff state
-- (conversations_tenant_handoff) or by their tenant's call and lead ids (privacy scope, through the tenant prefix of
-- conversations_tenant_handoff). The index was written for every conversation a lead or a call opens, and again on
-- every update of one (none of those updates is HOT: updated_at is indexed).
DROP INDEX IF EXISTS conversations_tenant_state;
