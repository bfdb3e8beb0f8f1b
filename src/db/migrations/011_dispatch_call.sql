-- Call engine (010-019): dispatch in one round trip (src/calls/service.ts).
-- dispatch_call() reads the agent snapshot, takes the tenant's dispatch lock, counts the tenant's active calls,
-- and, under the limit, links or creates the conversation and inserts the call (status queued) with its first
-- transition. It is VOLATILE plpgsql, so every statement takes a fresh snapshot: the count that follows the lock
-- sees every call committed by the previous holder, which keeps the per-tenant limit exact under concurrency.
-- p_async = true commits this transaction without waiting for the WAL flush, so the lock is not held across the
-- disk flush (a serialised fsync per dispatch would cap one tenant at ~1/fsync per second). Visibility is not
-- affected; the caller answers only after a later synchronous commit (the queued status item), which flushes
-- the WAL up to and including this dispatch.
-- NOTE: src/db/migrate.ts splits scripts on a semicolon at a line end; inside the body every semicolon is
-- followed by a comment on the same line so the body stays one statement. Keep it that way when editing.
CREATE OR REPLACE FUNCTION dispatch_call(
  p_id text, p_tenant text, p_agent_key text, p_agent jsonb, p_agent_id text, p_to text, p_language text,
  p_context jsonb, p_tools jsonb, p_webhook_url text, p_conversation_id text, p_new_conversation_id text,
  p_lead_id text, p_campaign_id text, p_scenario text, p_instance text, p_limit integer, p_async boolean
) RETURNS TABLE (o_outcome text, o_active bigint, o_agent jsonb, o_language text, o_conversation_id text, o_created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_agent jsonb := p_agent; -- inline agent settings, or read below
  v_active bigint; -- active calls of the tenant
  v_conv text; -- the call's conversation
  v_created timestamptz; -- calls.created_at
BEGIN
  IF v_agent IS NULL THEN
    SELECT jsonb_build_object('role', a.role, 'voice', a.voice, 'language', a.language,
      'interruption_sensitivity', a.interruption_sensitivity::float8, 'turn_detection_timeout_ms', a.turn_detection_timeout_ms,
      'disclosure_script', a.disclosure_script, 'qualify_script', a.qualify_script)
      INTO v_agent FROM agents a WHERE a.tenant_id = p_tenant AND a.id = p_agent_key; -- agent snapshot
    IF v_agent IS NULL THEN
      RETURN QUERY SELECT 'agent_not_found'::text, 0::bigint, NULL::jsonb, NULL::text, NULL::text, NULL::timestamptz; -- 404
      RETURN; -- done
    END IF; -- agent found
  END IF; -- agent resolved
  PERFORM pg_advisory_xact_lock(hashtext('calls:' || p_tenant)); -- one dispatcher per tenant until commit
  SELECT count(*) INTO v_active FROM calls c
    WHERE c.tenant_id = p_tenant AND c.status IN ('queued', 'dialing', 'ringing', 'in_progress'); -- fresh snapshot
  IF v_active >= p_limit THEN
    RETURN QUERY SELECT 'concurrency_limited'::text, v_active, NULL::jsonb, NULL::text, NULL::text, NULL::timestamptz; -- 429
    RETURN; -- done
  END IF; -- under the limit
  IF p_async THEN
    PERFORM set_config('synchronous_commit', 'off', true); -- this transaction only
  END IF; -- async
  IF p_conversation_id IS NOT NULL THEN
    UPDATE conversations cv SET call_id = p_id, updated_at = now()
      WHERE cv.id = p_conversation_id AND cv.tenant_id = p_tenant RETURNING cv.id INTO v_conv; -- the lead's conversation
  END IF; -- given conversation
  IF v_conv IS NULL THEN
    INSERT INTO conversations AS cv (id, tenant_id, call_id, lead_id) VALUES (p_new_conversation_id, p_tenant, p_id, p_lead_id)
      RETURNING cv.id INTO v_conv; -- a new conversation for the call
  END IF; -- conversation linked
  INSERT INTO calls AS c (id, tenant_id, agent_id, agent, to_number, language, context, tools, webhook_url, status,
      conversation_id, lead_id, campaign_id, scenario, instance_id)
    VALUES (p_id, p_tenant, p_agent_id, v_agent, p_to, COALESCE(p_language, v_agent->>'language'), p_context, p_tools, p_webhook_url,
      'queued', v_conv, p_lead_id, p_campaign_id, p_scenario, p_instance)
    RETURNING c.created_at INTO v_created; -- the call
  INSERT INTO call_transitions (call_id, tenant_id, from_status, to_status, reason)
    VALUES (p_id, p_tenant, NULL, 'queued', 'dispatched'); -- its first transition
  RETURN QUERY SELECT 'ok'::text, v_active, v_agent, COALESCE(p_language, v_agent->>'language'), v_conv, v_created; -- the result
END
$fn$;
