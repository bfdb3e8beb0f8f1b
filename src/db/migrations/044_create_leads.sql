-- Group commit for POST /v1/leads (src/leads/service.ts): the leads that arrive while the previous batch is in
-- flight are stored by one statement, one transaction and one commit. Per item, in (tenant, number, arrival)
-- order, the rules of the earlier single-lead statement:
--  * duplicate check (when dup_since is set): the number's advisory lock, then the newest lead of the number
--    created after dup_since; if there is one, it is the answer and nothing is written. The lock is held to
--    commit, so a simultaneous copy in another batch waits and then sees this one; a copy later in the same batch
--    sees it too (same transaction). Locks are taken in (tenant, number) order in every batch: no deadlock.
--  * do-not-disturb (when dnd_at is set): a number in the tenant's registry without a consent given at or before
--    dnd_at makes the lead 'blocked' (reason dnd) with no job, whatever call_status said (the calling-hours
--    outcome, decided by the service).
--  * the conversation with the agent's disclosure as its first message (fallback_text when the agent is
--    missing), the lead, and its call job when it may be dialed ('claimed' by job_instance to dial now, or
--    'pending' until job_due).
-- o_lead is the stored (or duplicate) lead as JSON. When p_async is set and every lead of the batch is claimed to
-- be dialed at once, the commit does not wait for the WAL flush: each is dialed next, and that dispatch's own
-- synchronous commit (or the job's reschedule or failure) is made before the caller answers, flushing this one.
-- NOTE: semicolons in the body are followed by a comment on the same line (see 011 and src/db/migrate.ts).
CREATE FUNCTION create_leads(p_items jsonb, p_async boolean)
RETURNS TABLE (o_i integer, o_duplicate boolean, o_job_id bigint, o_lead jsonb)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  r record; -- one lead
  v_dup leads; -- an earlier lead of the number inside the window
  v_dnd boolean; -- the number is blocked by the DND registry
  v_lead leads; -- the stored lead
  v_job bigint; -- its call job
  v_all_dialed boolean := true; -- every item of the batch is dialed at once
BEGIN
  FOR r IN SELECT * FROM jsonb_to_recordset(p_items) AS t(i integer, id text, tenant text, name text, e164 text, source text,
      domain text, timezone text, conversation_id text, call_status text, call_reason text, scheduled_for timestamptz,
      created_by text, created_at timestamptz, agent_id text, fallback_text text, meta jsonb, job_status text,
      job_due timestamptz, job_instance text, dnd_at timestamptz, dup_since timestamptz) ORDER BY t.tenant, t.e164, t.i LOOP
    IF r.dup_since IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(hashtext('lead:' || r.tenant || ':' || r.e164)); -- one writer per number until commit
      SELECT * INTO v_dup FROM leads l WHERE l.tenant_id = r.tenant AND l.e164 = r.e164 AND l.created_at > r.dup_since
        ORDER BY l.created_at DESC LIMIT 1; -- the newest inside the window
      IF FOUND THEN
        v_all_dialed := false; -- nothing of it is dialed
        RETURN QUERY SELECT r.i, true, NULL::bigint, to_jsonb(v_dup); -- the duplicate
        CONTINUE; -- next item
      END IF; -- a duplicate answers
    END IF; -- duplicate check
    v_dnd := r.dnd_at IS NOT NULL
      AND EXISTS (SELECT 1 FROM dnd_numbers d WHERE d.tenant_id = r.tenant AND d.e164 = r.e164)
      AND NOT EXISTS (SELECT 1 FROM consents c WHERE c.tenant_id = r.tenant AND c.e164 = r.e164 AND c.consented_at <= r.dnd_at); -- DND gate
    INSERT INTO conversations (id, tenant_id, domain, lead_id) VALUES (r.conversation_id, r.tenant, r.domain, r.id); -- its conversation
    INSERT INTO conversation_messages (conversation_id, tenant_id, role, text, meta)
      VALUES (r.conversation_id, r.tenant, 'agent',
        COALESCE((SELECT a.disclosure_script FROM agents a WHERE a.tenant_id = r.tenant AND a.id = r.agent_id), r.fallback_text), r.meta); -- the disclosure
    INSERT INTO leads (id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_status, call_reason, scheduled_for, created_by, created_at)
      VALUES (r.id, r.tenant, r.name, r.e164, r.source, r.domain, r.timezone, r.conversation_id,
        CASE WHEN v_dnd THEN 'blocked' ELSE r.call_status END, CASE WHEN v_dnd THEN 'dnd' ELSE r.call_reason END,
        CASE WHEN v_dnd THEN NULL ELSE r.scheduled_for END, r.created_by, r.created_at)
      RETURNING * INTO v_lead; -- the lead
    v_job := NULL; -- per item
    IF r.job_status IS NOT NULL AND NOT v_dnd THEN
      INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at, status, claimed_at, claimed_by, attempts)
        VALUES (r.tenant, r.id, r.job_due, r.job_status, CASE WHEN r.job_status = 'claimed' THEN now() END,
          CASE WHEN r.job_status = 'claimed' THEN r.job_instance END, CASE WHEN r.job_status = 'claimed' THEN 1 ELSE 0 END)
        RETURNING id INTO v_job; -- its call job
    END IF; -- job
    IF v_job IS NULL OR r.job_status <> 'claimed' THEN
      v_all_dialed := false; -- this one is not dialed now
    END IF; -- dialed now?
    RETURN QUERY SELECT r.i, false, v_job, to_jsonb(v_lead); -- the stored lead
  END LOOP; -- every item answered
  IF p_async AND v_all_dialed THEN
    PERFORM set_config('synchronous_commit', 'off', true); -- this transaction only
  END IF; -- async commit
END
$fn$;
