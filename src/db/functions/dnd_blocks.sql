-- dnd_blocks: the do-not-disturb rule (TRAI/DND), in one place for every outbound call. A number in the tenant's
-- DND registry is blocked unless the consent log holds a consent for it given at or before p_at (consent lifts
-- DND). Called by create_leads and dispatch_calls inside their statements and by src/leads/gates.ts
-- (checkCallGates: the lead scheduler and the campaign dialer).
CREATE OR REPLACE FUNCTION dnd_blocks(p_tenant text, p_e164 text, p_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $fn$
  SELECT EXISTS (SELECT 1 FROM dnd_numbers n WHERE n.tenant_id = p_tenant AND n.e164 = p_e164)
    AND NOT EXISTS (SELECT 1 FROM consents c WHERE c.tenant_id = p_tenant AND c.e164 = p_e164 AND c.consented_at <= p_at)
$fn$;
