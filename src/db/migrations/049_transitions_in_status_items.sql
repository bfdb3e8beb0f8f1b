-- A call's transitions are its status items. Every status move stored two rows of the same fact: a call_transitions
-- row (from, to, reason, at) and, in the same statement, its live status item in call_events (to, ended_reason,
-- at, seq). The transition row cost a heap row, two index entries (its bigserial key and (call_id, id)), a
-- foreign-key check and a sequence value, three times per call. Without it PostgreSQL's CPU per request fell
-- from 0.44-0.46 to 0.42-0.43 ms (leads, open loop at 1,500/s) and from 0.24-0.26 to 0.20-0.22 ms (dispatch at
-- full speed; bench/leads_http.bench.ts, three alternating rounds). From here on the status item also carries
-- the move's origin and reason (from_status, reason: columns, not payload, so the live stream is unchanged) and
-- is marked is_transition.
-- call_transitions keeps the transitions stored before this migration and gets no new rows; the view
-- call_lifecycle reads both (legacy rows first, era 0, in id order; then status items, era 1, in seq order), so a
-- call dispatched before the upgrade and moved after it still shows its whole lifecycle. Readers use the view.
-- Status items written before this migration are not transitions (is_transition false): their transitions are the
-- legacy rows.
ALTER TABLE call_events ADD COLUMN is_transition boolean NOT NULL DEFAULT false;
ALTER TABLE call_events ADD COLUMN from_status text;
ALTER TABLE call_events ADD COLUMN reason text;
COMMENT ON TABLE call_transitions IS 'transitions stored before migration 049 (no new rows: status items in call_events carry them since); read through the view call_lifecycle';

CREATE VIEW call_lifecycle AS
  SELECT t.call_id, t.tenant_id, t.from_status, t.to_status, t.reason, t.at, 0 AS era, t.id AS pos FROM call_transitions t
  UNION ALL
  SELECT e.call_id, e.tenant_id, e.from_status, e.payload->>'status', e.reason, e.at, 1, e.seq::bigint FROM call_events e
  WHERE e.is_transition;

-- dispatch_calls as in 048, except that the call's first transition (none -> queued, 'dispatched') is its seq-1
-- status item, not a call_transitions row.
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
      new_conversation_id text, conversation_linked boolean, lead_id text, lead_job_id bigint, campaign_id text, scenario text)
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
      p.webhook_url, 'queued', p.conv,
      p.lead_id, p.campaign_id, p.scenario, p_instance
    FROM placed p
  ), counted AS (
    INSERT INTO call_event_counters (call_id, last_seq) SELECT p.id, 1 FROM placed p
  ), announced AS (
    INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at, is_transition, from_status, reason)
    SELECT p.id, 1, p.tenant, 'status', '{"status":"queued","ended_reason":null}'::jsonb, now(), true, NULL, 'dispatched' FROM placed p
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
