-- create_leads: stores a batch of leads (POST /v1/leads, group-committed by src/leads/service.ts) in one
-- transaction. Per item, in (tenant, number, arrival) order:
--  * duplicate check (when dup_since is set): the number's advisory lock, then the newest lead of the number
--    created after dup_since; if there is one, it is the answer and nothing is written. The lock is held to
--    commit, so a simultaneous copy in another batch waits and then sees this one; a copy later in the same batch
--    sees it too (same transaction).
--  * do-not-disturb (when dnd_at is set): dnd_blocks (a number in the tenant's registry without a consent given at
--    or before dnd_at) makes the lead 'blocked' (reason dnd) with no job, whatever call_status said (the
--    calling-hours outcome, decided by the service).
--  * the conversation with the agent's disclosure as its first message (fallback_text when the agent is
--    missing), the lead, and its call job when it may be dialed later ('pending' until job_due).
--  * an item with `dial` (a dispatch_calls item built by the call engine) is stored 'dispatched' with that call's
--    id and no job; after the loop every such item is dispatched by one dispatch_calls call (its tenant lock,
--    exact active count and concurrency limit), so the lead and its call commit together. A refused item is
--    corrected before commit: concurrency_limited -> 'scheduled' (reason retry:concurrency_limited) at retry_at
--    with a pending job; any other refusal -> 'failed' with that outcome as reason.
-- Lock order: the number locks of the batch in (tenant, number) order, then the tenants' dispatch locks in tenant
-- order (dispatch_calls); every writer takes them in that order, so batches cannot deadlock.
-- o_lead is the stored (or duplicate) lead as JSON; o_call is dispatch_calls' answer for a dialed item.
DROP FUNCTION IF EXISTS create_leads(jsonb, boolean);
CREATE OR REPLACE FUNCTION create_leads(p_items jsonb, p_instance text, p_limit integer)
RETURNS TABLE (o_i integer, o_duplicate boolean, o_job_id bigint, o_lead jsonb, o_call jsonb)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  r record; -- one lead
  d record; -- one dispatch answer
  v_dup leads; -- an earlier lead of the number inside the window
  v_dnd boolean; -- the number is blocked by the DND registry
  v_dial boolean; -- the item is dialed in this statement
  v_lead leads; -- the stored lead
  v_job bigint; -- its call job
  v_dials jsonb[] := '{}'; -- dispatch_calls items of the batch (arrays append in place; jsonb || would copy)
  v_held leads[] := '{}'; -- the dialed items' leads, answered after the dispatch, in v_dials' order
  v_held_i integer[] := '{}'; -- their item numbers
  v_retry timestamptz[] := '{}'; -- their retry times
  v_k integer; -- a position in those arrays
BEGIN
  FOR r IN SELECT * FROM jsonb_to_recordset(p_items) AS t(i integer, id text, tenant text, name text, e164 text, source text,
      domain text, timezone text, conversation_id text, call_status text, call_reason text, scheduled_for timestamptz,
      created_by text, created_at timestamptz, agent_id text, fallback_text text, meta jsonb, job_status text,
      job_due timestamptz, job_instance text, dnd_at timestamptz, dup_since timestamptz, dial jsonb, retry_at timestamptz)
      ORDER BY t.tenant, t.e164, t.i LOOP
    IF r.dup_since IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(hashtext('lead:' || r.tenant || ':' || r.e164)); -- one writer per number until commit
      SELECT * INTO v_dup FROM leads l WHERE l.tenant_id = r.tenant AND l.e164 = r.e164 AND l.created_at > r.dup_since
        ORDER BY l.created_at DESC LIMIT 1; -- the newest inside the window
      IF FOUND THEN
        RETURN QUERY SELECT r.i, true, NULL::bigint, to_jsonb(v_dup), NULL::jsonb; -- the duplicate
        CONTINUE; -- next item
      END IF; -- a duplicate answers
    END IF; -- duplicate check
    v_dnd := r.dnd_at IS NOT NULL AND dnd_blocks(r.tenant, r.e164, r.dnd_at); -- DND gate (dnd_blocks.sql)
    v_dial := r.dial IS NOT NULL AND jsonb_typeof(r.dial) = 'object' AND r.job_status = 'claimed' AND NOT v_dnd; -- dialed here
    INSERT INTO conversations (id, tenant_id, domain, lead_id, call_id)
      VALUES (r.conversation_id, r.tenant, r.domain, r.id, CASE WHEN v_dial THEN r.dial->>'id' END); -- its conversation (and call)
    INSERT INTO conversation_messages (conversation_id, tenant_id, role, text, meta)
      VALUES (r.conversation_id, r.tenant, 'agent',
        COALESCE((SELECT a.disclosure_script FROM agents a WHERE a.tenant_id = r.tenant AND a.id = r.agent_id), r.fallback_text), r.meta); -- the disclosure
    INSERT INTO leads (id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_id, call_status, call_reason, scheduled_for, created_by, created_at)
      VALUES (r.id, r.tenant, r.name, r.e164, r.source, r.domain, r.timezone, r.conversation_id,
        CASE WHEN v_dial THEN r.dial->>'id' END,
        CASE WHEN v_dnd THEN 'blocked' WHEN v_dial THEN 'dispatched' ELSE r.call_status END,
        CASE WHEN v_dnd THEN 'dnd' WHEN v_dial THEN NULL ELSE r.call_reason END,
        CASE WHEN v_dnd OR v_dial THEN NULL ELSE r.scheduled_for END, r.created_by, r.created_at)
      RETURNING * INTO v_lead; -- the lead (its call's outcome is checked below)
    IF v_dial THEN
      v_dials := array_append(v_dials, r.dial || jsonb_build_object('i', r.i, 'conversation_linked', true)); -- dispatched after the loop
      v_held := array_append(v_held, v_lead); -- answered then
      v_held_i := array_append(v_held_i, r.i); -- keyed by item
      v_retry := array_append(v_retry, r.retry_at); -- when a refusal is retried
      CONTINUE; -- next item
    END IF; -- dialed here
    v_job := NULL; -- per item
    IF r.job_status IS NOT NULL AND NOT v_dnd THEN
      INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at, status, claimed_at, claimed_by, attempts)
        VALUES (r.tenant, r.id, r.job_due, r.job_status, CASE WHEN r.job_status = 'claimed' THEN now() END,
          CASE WHEN r.job_status = 'claimed' THEN r.job_instance END, CASE WHEN r.job_status = 'claimed' THEN 1 ELSE 0 END)
        RETURNING id INTO v_job; -- its call job
    END IF; -- job
    RETURN QUERY SELECT r.i, false, v_job, to_jsonb(v_lead), NULL::jsonb; -- the stored lead
  END LOOP; -- every item stored
  IF cardinality(v_dials) = 0 THEN
    RETURN; -- nothing to dial
  END IF; -- dials
  FOR d IN SELECT * FROM dispatch_calls(to_jsonb(v_dials), p_instance, p_limit) LOOP
    v_k := array_position(v_held_i, d.o_i); -- its lead
    v_lead := v_held[v_k]; -- as stored above
    IF d.o_outcome = 'ok' THEN
      RETURN QUERY SELECT d.o_i, false, NULL::bigint, to_jsonb(v_lead), to_jsonb(d); -- dialed
      CONTINUE; -- next answer
    END IF; -- dialed
    v_job := NULL; -- per item
    UPDATE conversations SET call_id = NULL WHERE id = v_lead.conversation_id AND tenant_id = v_lead.tenant_id; -- no call
    IF d.o_outcome = 'concurrency_limited' THEN
      INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at, status, attempts)
        VALUES (v_lead.tenant_id, v_lead.id, v_retry[v_k], 'pending', 1)
        RETURNING id INTO v_job; -- retried by the scheduler
      UPDATE leads SET call_id = NULL, call_status = 'scheduled', call_reason = 'retry:concurrency_limited',
          scheduled_for = v_retry[v_k]
        WHERE id = v_lead.id RETURNING * INTO v_lead; -- waits for a free slot
    ELSE
      UPDATE leads SET call_id = NULL, call_status = 'failed', call_reason = d.o_outcome
        WHERE id = v_lead.id RETURNING * INTO v_lead; -- refused for good
    END IF; -- refusal recorded
    RETURN QUERY SELECT d.o_i, false, v_job, to_jsonb(v_lead), to_jsonb(d); -- not dialed
  END LOOP; -- every dial answered
END
$fn$;
