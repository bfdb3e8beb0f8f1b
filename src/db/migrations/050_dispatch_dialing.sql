-- A dispatch whose call this instance dials at once is stored dialing. The call engine's runner starts every call
-- it is handed right after the dispatch commits (there is no local queue: src/calls/runner.ts), and its first step
-- was a status move queued -> dialing: a second statement per call, with its own non-HOT update of the calls row
-- (status is indexed), counter update and status item, shortly after the first. Now an item may carry
-- `dialing: true` (src/calls/service.ts sets it when a runner is attached): the call is inserted as dialing, with
-- both status items (seq 1 queued 'dispatched', seq 2 dialing 'dialing', the same two transitions as before, at
-- the dispatch's time), and the runner goes straight to the carrier. A crash between this commit and placeCall
-- leaves the same state as a crash between the old move and placeCall: a dialing call of a lost instance, ended
-- by src/calls/instances.ts. An item without `dialing` (or false) is stored queued as in 049.
-- Measured (bench/leads_http.bench.ts, alternating rounds against 049): PostgreSQL CPU per dispatch at full speed
-- 0.15-0.18 against 0.21-0.23 ms; per lead 0.25-0.29 against 0.29-0.32 ms.
-- dispatch_calls as in 049 otherwise.
-- NOTE: semicolons in the body are followed by a comment on the same line (see 011 and src/db/migrate.ts).
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
      dialing boolean)
  ), resolved AS (
    SELECT x.*, CASE WHEN x.agent IS NOT NULL AND jsonb_typeof(x.agent) <> 'null' THEN x.agent
        WHEN a.id IS NOT NULL THEN jsonb_build_object('role', a.role, 'voice', a.voice, 'language', a.language,
          'interruption_sensitivity', a.interruption_sensitivity::float8, 'turn_detection_timeout_ms', a.turn_detection_timeout_ms,
          'disclosure_script', a.disclosure_script, 'qualify_script', a.qualify_script) END AS snap
    FROM input x LEFT JOIN agents a ON (x.agent IS NULL OR jsonb_typeof(x.agent) = 'null') AND a.tenant_id = x.tenant AND a.id = x.agent_key
  ), ranked AS (
    SELECT r.*, v.active, row_number() OVER (PARTITION BY r.tenant, r.snap IS NULL ORDER BY r.i) AS k
    FROM resolved r JOIN unnest(v_tenants, v_active) AS v(tenant, active) ON v.tenant = r.tenant
  ), decided AS (
    SELECT k.*, CASE WHEN k.snap IS NULL THEN 'agent_not_found' WHEN k.active + k.k - 1 < p_limit THEN 'ok'
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
        conversation_id, lead_id, campaign_id, scenario, instance_id)
    SELECT p.id, p.tenant, p.agent_id, p.snap, p.to_number, COALESCE(p.language, p.snap->>'language'), p.context, p.tools,
      p.webhook_url, CASE WHEN p.dialing THEN 'dialing' ELSE 'queued' END, p.conv,
      p.lead_id, p.campaign_id, p.scenario, p_instance
    FROM placed p
  ), counted AS (
    INSERT INTO call_event_counters (call_id, last_seq) SELECT p.id, CASE WHEN p.dialing THEN 2 ELSE 1 END FROM placed p
  ), announced AS (
    INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at, is_transition, from_status, reason)
    SELECT p.id, 1, p.tenant, 'status', '{"status":"queued","ended_reason":null}'::jsonb, now(), true, NULL, 'dispatched' FROM placed p
    UNION ALL
    SELECT p.id, 2, p.tenant, 'status', '{"status":"dialing","ended_reason":null}'::jsonb, now(), true, 'queued', 'dialing' FROM placed p
    WHERE p.dialing
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
