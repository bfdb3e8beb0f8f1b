-- Every status move stores its live status item in the same statement (see src/calls/lifecycle.ts); this is the
-- first one: a dispatch also stores the call's `queued` item (seq 1, at = created_at). Before, that item was a
-- second group-committed statement on the request's path, and its synchronous commit was what made the
-- dispatch durable before 201 (the dispatch itself committed asynchronously). Now the one transaction commits
-- synchronously, so p_async is gone. Rules otherwise as in 012.
-- NOTE: semicolons in the body are followed by a comment on the same line (see 011 and src/db/migrate.ts).
DROP FUNCTION IF EXISTS dispatch_call(text, text, text, jsonb, text, text, text, jsonb, jsonb, text, text, text, text, text, text, text, integer, boolean);
DROP FUNCTION IF EXISTS dispatch_calls(jsonb, text, integer, boolean);

CREATE FUNCTION dispatch_calls(p_items jsonb, p_instance text, p_limit integer)
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
      new_conversation_id text, lead_id text, lead_job_id bigint, campaign_id text, scenario text) ORDER BY t.tenant, t.i LOOP
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
    IF r.conversation_id IS NOT NULL THEN
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

-- dispatch_call (011) stays a one-item dispatch_calls, so the rules are written once.
CREATE FUNCTION dispatch_call(
  p_id text, p_tenant text, p_agent_key text, p_agent jsonb, p_agent_id text, p_to text, p_language text,
  p_context jsonb, p_tools jsonb, p_webhook_url text, p_conversation_id text, p_new_conversation_id text,
  p_lead_id text, p_campaign_id text, p_scenario text, p_instance text, p_limit integer
) RETURNS TABLE (o_outcome text, o_active bigint, o_agent jsonb, o_language text, o_conversation_id text, o_created_at timestamptz)
LANGUAGE sql VOLATILE AS $fn$
  SELECT d.o_outcome, d.o_active, d.o_agent, d.o_language, d.o_conversation_id, d.o_created_at
  FROM dispatch_calls(jsonb_build_array(jsonb_build_object('i', 0, 'id', p_id, 'tenant', p_tenant, 'agent_key', p_agent_key,
    'agent', p_agent, 'agent_id', p_agent_id, 'to_number', p_to, 'language', p_language, 'context', p_context, 'tools', p_tools,
    'webhook_url', p_webhook_url, 'conversation_id', p_conversation_id, 'new_conversation_id', p_new_conversation_id,
    'lead_id', p_lead_id, 'campaign_id', p_campaign_id, 'scenario', p_scenario)), p_instance, p_limit) AS d
$fn$;
