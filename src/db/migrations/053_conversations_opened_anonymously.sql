-- An anonymous demo conversation whose visitor asked for a human joins the tenant the public demo belongs to
-- (DEMO_TENANT_ID) as a handoff its operators see; opened_anonymously keeps it readable without a JWT by whoever
-- holds its id (the visitor, who reads the operator's reply there) and bounds how many such handoffs may wait.
ALTER TABLE conversations ADD COLUMN opened_anonymously boolean NOT NULL DEFAULT false;
CREATE INDEX conversations_anonymous_waiting ON conversations (tenant_id) WHERE opened_anonymously AND handoff_state = 'waiting';
