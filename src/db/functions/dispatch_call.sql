-- dispatch_call: one dispatch with positional arguments, a one-item dispatch_calls so the rules live there only.
DROP FUNCTION IF EXISTS dispatch_call(text, text, text, jsonb, text, text, text, jsonb, jsonb, text, text, text, text, text, text, text, integer, boolean);
CREATE OR REPLACE FUNCTION dispatch_call(
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
