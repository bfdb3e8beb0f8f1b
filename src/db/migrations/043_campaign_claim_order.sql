-- Claims read contacts in list order through an index instead of sorting the whole campaign each time,
-- and the reconciler finds dialing contacts through a small partial index.
ALTER TABLE campaign_contacts ADD COLUMN position integer NOT NULL DEFAULT 0;
CREATE INDEX campaign_contacts_pending ON campaign_contacts (campaign_id, position) WHERE state = 'pending';
CREATE INDEX campaign_contacts_retry ON campaign_contacts (campaign_id, next_attempt_at) WHERE state = 'retry';
CREATE INDEX campaign_contacts_dialing ON campaign_contacts (campaign_id) WHERE state = 'dialing';
