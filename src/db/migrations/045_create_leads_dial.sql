-- A lead that may be dialed now is dialed in its own statement (src/leads/service.ts). Before, create_leads (044)
-- stored the lead with a 'claimed' call job and committed; the service then dispatched the call through the call
-- engine's batch (dispatch_calls, 013), which marked the lead dispatched and the job done and committed again. So
-- every dialed lead cost two group-committed statements, a job row written twice and the lead row written twice.
-- Now an item may carry `dial`, a dispatch_calls item (built by the call engine, src/calls/service.ts): create_leads
-- stores the lead already 'dispatched' with that call's id, without a job, and after the loop dispatches every
-- such item with one call of dispatch_calls (its tenant lock, exact active count and concurrency limit). The lead
-- and its call commit together, so there is nothing for a job to recover: once committed, the call is the call
-- engine's. An item the engine refuses is corrected before commit, as the scheduler (src/leads/dispatcher.ts)
-- would: concurrency_limited → 'scheduled' (reason retry:concurrency_limited) at retry_at with a pending job;
-- any other refusal → 'failed' with that outcome as reason. Items without `dial` follow 044's rules unchanged.
-- The commit is synchronous: the lead and its call are durable before the caller hears 201.
-- Lock order: the number locks of the batch, in (tenant, number) order, then the tenants' dispatch locks in tenant
-- order (dispatch_calls); every writer takes them in that order, so batches cannot deadlock.
-- o_call is dispatch_calls' answer for a dialed item (null otherwise): the engine starts the call from it.
-- NOTE: semicolons in the body are followed by a comment on the same line (see 011 and src/db/migrate.ts).
DROP FUNCTION IF EXISTS create_leads(jsonb, boolean);

-- dispatch_calls as in 013, plus one item field: `conversation_linked`, set by a caller whose own statement has
-- just inserted the conversation already naming the call (create_leads below). Linking it again was an UPDATE of
-- a row written microseconds before: a second version of it and of its three index entries (updated_at is
-- indexed), for every dialed lead.
CREATE OR REPLACE FUNCTION dispatch_calls(p_items jsonb, p_instance text, p_limit integer)
RETURNS TABLE (o_i integer, o_outcome text, o_active bigint, o_agent jsonb, o_language text, o_conversation_id text, o_created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  r record; -- one dispatch
  v_tenant text; -- the tenant whose lock and count are current
  v_active bigint; -- its active calls, counting this batch's
  v_agent jsonb; -- the item's agent snapshot
  v_conv text; -- the item's conversation
  v_created timestamptz; -- calls.created_at
BEGIN
  FOR r IN SELECT * FROM jsonb_to_recordset(p_items) AS t(i integer, id text, tenant text, agent_key text, agent jsonb,
      agent_id text, to_number text, language text, context jsonb, tools jsonb, webhook_url text, conversation_id text,
      new_conversation_id text, conversation_linked boolean, lead_id text, lead_job_id bigint, campaign_id text, scenario text)
      ORDER BY t.tenant, t.i LOOP
    v_agent := r.agent; -- inline settings, or the stored agent below
    IF v_agent IS NULL OR jsonb_typeof(v_agent) = 'null' THEN
      SELECT jsonb_build_object('role', a.role, 'voice', a.voice, 'language', a.language,
        'interruption_sensitivity', a.interruption_sensitivity::float8, 'turn_detection_timeout_ms', a.turn_detection_timeout_ms,
        'disclosure_script', a.disclosure_script, 'qualify_script', a.qualify_script)
        INTO v_agent FROM agents a WHERE a.tenant_id = r.tenant AND a.id = r.agent_key; -- agent snapshot
      IF v_agent IS NULL THEN
        RETURN QUERY SELECT r.i, 'agent_not_found'::text, 0::bigint, NULL::jsonb, NULL::text, NULL::text, NULL::timestamptz; -- 404
        CONTINUE; -- next item
      END IF; -- agent found
    END IF; -- agent resolved
    IF v_tenant IS DISTINCT FROM r.tenant THEN
      v_tenant := r.tenant; -- a new tenant in the batch
      PERFORM pg_advisory_xact_lock(hashtext('calls:' || r.tenant)); -- one dispatcher per tenant until commit
      SELECT count(*) INTO v_active FROM calls c
        WHERE c.tenant_id = r.tenant AND c.status IN ('queued', 'dialing', 'ringing', 'in_progress'); -- fresh snapshot
    END IF; -- lock held, count current
    IF v_active >= p_limit THEN
      RETURN QUERY SELECT r.i, 'concurrency_limited'::text, v_active, NULL::jsonb, NULL::text, NULL::text, NULL::timestamptz; -- 429
      CONTINUE; -- next item
    END IF; -- under the limit
    v_conv := NULL; -- per item
    IF r.conversation_id IS NOT NULL AND r.conversation_linked THEN
      v_conv := r.conversation_id; -- inserted by the caller's statement, already naming this call
    ELSIF r.conversation_id IS NOT NULL THEN
      UPDATE conversations cv SET call_id = r.id, updated_at = now()
        WHERE cv.id = r.conversation_id AND cv.tenant_id = r.tenant RETURNING cv.id INTO v_conv; -- the lead's conversation
    END IF; -- given conversation
    IF v_conv IS NULL THEN
      INSERT INTO conversations AS cv (id, tenant_id, call_id, lead_id) VALUES (r.new_conversation_id, r.tenant, r.id, r.lead_id)
        RETURNING cv.id INTO v_conv; -- a new conversation for the call
    END IF; -- conversation linked
    INSERT INTO calls AS c (id, tenant_id, agent_id, agent, to_number, language, context, tools, webhook_url, status,
        conversation_id, lead_id, campaign_id, scenario, instance_id)
      VALUES (r.id, r.tenant, r.agent_id, v_agent, r.to_number, COALESCE(r.language, v_agent->>'language'), r.context, r.tools,
        r.webhook_url, 'queued', v_conv, r.lead_id, r.campaign_id, r.scenario, p_instance)
      RETURNING c.created_at INTO v_created; -- the call
    INSERT INTO call_transitions (call_id, tenant_id, from_status, to_status, reason)
      VALUES (r.id, r.tenant, NULL, 'queued', 'dispatched'); -- its first transition
    INSERT INTO call_event_counters (call_id, last_seq) VALUES (r.id, 1); -- seq 1 is taken
    INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at)
      VALUES (r.id, 1, r.tenant, 'status', '{"status":"queued","ended_reason":null}'::jsonb, v_created); -- its first live item
    IF r.lead_job_id IS NOT NULL THEN
      UPDATE leads SET call_id = r.id, call_status = 'dispatched', call_reason = NULL, scheduled_for = NULL
        WHERE tenant_id = r.tenant AND id = r.lead_id; -- the lead shows its call
      UPDATE lead_call_jobs SET status = 'done', last_error = NULL WHERE id = r.lead_job_id AND tenant_id = r.tenant; -- job done
    END IF; -- lead marked
    RETURN QUERY SELECT r.i, 'ok'::text, v_active, v_agent, COALESCE(r.language, v_agent->>'language'), v_conv, v_created; -- the result
    v_active := v_active + 1; -- this call counts for the next
  END LOOP; -- every item answered
END
$fn$;


CREATE FUNCTION create_leads(p_items jsonb, p_instance text, p_limit integer)
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
    v_dnd := r.dnd_at IS NOT NULL
      AND EXISTS (SELECT 1 FROM dnd_numbers n WHERE n.tenant_id = r.tenant AND n.e164 = r.e164)
      AND NOT EXISTS (SELECT 1 FROM consents c WHERE c.tenant_id = r.tenant AND c.e164 = r.e164 AND c.consented_at <= r.dnd_at); -- DND gate
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
