-- dispatch_calls: stores a batch of dispatches (src/calls/service.ts group-commits them) in one statement set-wise,
-- item by item in (tenant, i) order:
--  * the agent: the item's inline settings (`agent`), else the tenant's stored agent `agent_key` (its steps, and
--    its text script as qualify_text for a language model), else the item is answered agent_not_found (o_active 0)
--    and counts for nothing;
--  * do-not-disturb (items with `dnd_at`: API dispatches; leads and campaigns gate before): dnd_blocks at dnd_at
--    answers dnd_blocked (o_active 0) and the item counts for nothing;
--  * the concurrency limit: each tenant of the batch is locked (pg_advisory_xact_lock, in tenant order) and its
--    active calls counted AFTER the lock, in a statement of their own so the count sees every dispatch committed by
--    the lock's previous holder; the k-th item of a tenant with an agent is admitted ('ok', o_active = active +
--    k - 1) while active + k - 1 < p_limit, and later ones are concurrency_limited (o_active = the count then,
--    GREATEST(active, p_limit));
--  * the conversation: the caller's (`conversation_linked`: inserted by the caller's statement already naming the
--    call), or an existing one named by `conversation_id` (linked to the call), else a new one
--    (`new_conversation_id`);
--  * the call and its first status items: seq 1 queued ('dispatched'); an item with `dialing` (the dispatching
--    instance starts the call right after commit) is stored dialing with seq 2 dialing, so the runner needs no
--    second statement to move it;
--  * a lead's call job (`lead_job_id`): the lead shows the call as dispatched and the job is done;
--  * an inbound call (`direction` 'inbound': a lead calling one of our numbers, `line_number`) is stored ringing
--    with seq 1 ringing ('inbound_call'), answered by its runner; the agent snapshot carries the agent's keypad;
--  * `compliance` (a transactional mark: who, why, which gates it lifted) is stored on the call and audited in
--    compliance_audit (`audit_id`, the number as its SHA-256 hex) in the same statement.
-- Every call of one statement has the same created_at (now(), the transaction's start). o_i is the item's
-- position in p_items.
DROP FUNCTION IF EXISTS dispatch_calls(jsonb, text, integer, boolean);
CREATE OR REPLACE FUNCTION dispatch_calls(p_items jsonb, p_instance text, p_limit integer)
RETURNS TABLE (o_i integer, o_outcome text, o_active bigint, o_agent jsonb, o_language text, o_conversation_id text, o_created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_tenants text[]; -- the batch's tenants, in lock order
  v_active bigint[] := '{}'; -- their active calls, counted under their locks, in the same order
  v_tenant text; -- one of them
  v_count bigint; -- its count
BEGIN
  SELECT array_agg(DISTINCT t.tenant ORDER BY t.tenant) INTO v_tenants FROM jsonb_to_recordset(p_items) AS t(tenant text); -- who dispatches
  FOREACH v_tenant IN ARRAY COALESCE(v_tenants, '{}') LOOP
    PERFORM pg_advisory_xact_lock(hashtext('calls:' || v_tenant)); -- one dispatcher per tenant until commit
    SELECT count(*) INTO v_count FROM calls c
      WHERE c.tenant_id = v_tenant AND c.status IN ('queued', 'dialing', 'ringing', 'in_progress'); -- fresh snapshot, after the lock
    v_active := array_append(v_active, v_count); -- kept for the decisions below
  END LOOP; -- every tenant locked and counted
  RETURN QUERY
  WITH input AS (
    SELECT t.* FROM jsonb_to_recordset(p_items) AS t(i integer, id text, tenant text, agent_key text, agent jsonb,
      agent_id text, to_number text, language text, context jsonb, tools jsonb, webhook_url text, conversation_id text,
      new_conversation_id text, conversation_linked boolean, lead_id text, lead_job_id bigint, campaign_id text, scenario text,
      dialing boolean, dnd_at timestamptz, compliance jsonb, audit_id text, direction text, line_number text)
  ), resolved AS (
    SELECT x.*, CASE WHEN x.agent IS NOT NULL AND jsonb_typeof(x.agent) <> 'null' THEN x.agent
        WHEN a.id IS NOT NULL THEN jsonb_build_object('role', a.role, 'voice', a.voice, 'language', a.language,
          'interruption_sensitivity', a.interruption_sensitivity::float8, 'turn_detection_timeout_ms', a.turn_detection_timeout_ms,
          'disclosure_script', a.disclosure_script, 'qualify_script', a.qualify_script, 'qualify_text', a.qualify_text, 'knowledge', a.knowledge,
          'voicemail', a.voicemail, 'voicemail_message', a.voicemail_message, 'transfer_number', a.transfer_number, 'transfer_mode', a.transfer_mode,
          'keypad', (SELECT kp.keys FROM agent_keypads kp WHERE kp.tenant_id = a.tenant_id AND kp.agent_id = a.id)) END AS snap,
      x.dnd_at IS NOT NULL AND dnd_blocks(x.tenant, x.to_number, x.dnd_at) AS dnd
    FROM input x LEFT JOIN agents a ON (x.agent IS NULL OR jsonb_typeof(x.agent) = 'null') AND a.tenant_id = x.tenant AND a.id = x.agent_key
  ), ranked AS (
    SELECT r.*, v.active, row_number() OVER (PARTITION BY r.tenant, r.snap IS NULL OR r.dnd ORDER BY r.i) AS k
    FROM resolved r JOIN unnest(v_tenants, v_active) AS v(tenant, active) ON v.tenant = r.tenant
  ), decided AS (
    SELECT k.*, CASE WHEN k.snap IS NULL THEN 'agent_not_found' WHEN k.dnd THEN 'dnd_blocked' WHEN k.active + k.k - 1 < p_limit THEN 'ok'
        ELSE 'concurrency_limited' END AS outcome
    FROM ranked k
  ), relinked AS (
    UPDATE conversations cv SET call_id = d.id, updated_at = now() FROM decided d
    WHERE d.outcome = 'ok' AND d.conversation_id IS NOT NULL AND NOT COALESCE(d.conversation_linked, false)
      AND cv.id = d.conversation_id AND cv.tenant_id = d.tenant
    RETURNING cv.id
  ), fresh AS (
    SELECT d.*, (d.conversation_id IS NULL OR NOT (COALESCE(d.conversation_linked, false)
        OR d.conversation_id IN (SELECT l.id FROM relinked l))) AS new_conversation
    FROM decided d WHERE d.outcome = 'ok'
  ), placed AS (
    SELECT f.*, CASE WHEN f.new_conversation THEN f.new_conversation_id ELSE f.conversation_id END AS conv FROM fresh f
  ), conversation_made AS (
    INSERT INTO conversations (id, tenant_id, call_id, lead_id)
    SELECT p.new_conversation_id, p.tenant, p.id, p.lead_id FROM placed p WHERE p.new_conversation
  ), call_made AS (
    INSERT INTO calls (id, tenant_id, agent_id, agent, to_number, language, context, tools, webhook_url, status,
        conversation_id, lead_id, campaign_id, scenario, instance_id, compliance, direction, line_number)
    SELECT p.id, p.tenant, p.agent_id, p.snap, p.to_number, COALESCE(p.language, p.snap->>'language'), p.context, p.tools,
      p.webhook_url, CASE WHEN p.direction = 'inbound' THEN 'ringing' WHEN p.dialing THEN 'dialing' ELSE 'queued' END, p.conv,
      p.lead_id, p.campaign_id, p.scenario, p_instance, p.compliance, COALESCE(p.direction, 'outbound'), p.line_number
    FROM placed p
  ), audited AS (
    INSERT INTO compliance_audit (id, tenant_id, action, call_id, subject_hash, reason, actor, actor_kind, gates_lifted)
    SELECT p.audit_id, p.tenant, 'transactional_call', p.id, encode(sha256(convert_to(p.to_number, 'UTF8')), 'hex'),
      p.compliance->>'reason', p.compliance->>'marked_by', p.compliance->>'marked_by_kind',
      ARRAY(SELECT jsonb_array_elements_text(p.compliance->'gates_lifted'))
    FROM placed p WHERE p.compliance IS NOT NULL AND jsonb_typeof(p.compliance) = 'object'
  ), counted AS (
    INSERT INTO call_event_counters (call_id, last_seq)
    SELECT p.id, CASE WHEN p.dialing AND p.direction IS DISTINCT FROM 'inbound' THEN 2 ELSE 1 END FROM placed p
  ), announced AS (
    INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at, is_transition, from_status, reason)
    SELECT p.id, 1, p.tenant, 'status', '{"status":"queued","ended_reason":null}'::jsonb, now(), true, NULL, 'dispatched' FROM placed p
    WHERE p.direction IS DISTINCT FROM 'inbound'
    UNION ALL
    SELECT p.id, 2, p.tenant, 'status', '{"status":"dialing","ended_reason":null}'::jsonb, now(), true, 'queued', 'dialing' FROM placed p
    WHERE p.dialing AND p.direction IS DISTINCT FROM 'inbound'
    UNION ALL
    SELECT p.id, 1, p.tenant, 'status', '{"status":"ringing","ended_reason":null}'::jsonb, now(), true, NULL, 'inbound_call' FROM placed p
    WHERE p.direction = 'inbound'
  ), lead_marked AS (
    UPDATE leads l SET call_id = p.id, call_status = 'dispatched', call_reason = NULL, scheduled_for = NULL FROM placed p
    WHERE p.lead_job_id IS NOT NULL AND l.tenant_id = p.tenant AND l.id = p.lead_id
  ), job_done AS (
    UPDATE lead_call_jobs j SET status = 'done', last_error = NULL FROM placed p
    WHERE p.lead_job_id IS NOT NULL AND j.id = p.lead_job_id AND j.tenant_id = p.tenant
  )
  SELECT d.i, d.outcome,
    CASE d.outcome WHEN 'ok' THEN d.active + d.k - 1 WHEN 'concurrency_limited' THEN GREATEST(d.active, p_limit) ELSE 0 END,
    CASE WHEN d.outcome = 'ok' THEN d.snap END,
    CASE WHEN d.outcome = 'ok' THEN COALESCE(d.language, d.snap->>'language') END,
    p.conv,
    CASE WHEN d.outcome = 'ok' THEN now() END
  FROM decided d LEFT JOIN placed p ON p.i = d.i
  ORDER BY d.tenant, d.i; -- 045's answer order
END
$fn$;
