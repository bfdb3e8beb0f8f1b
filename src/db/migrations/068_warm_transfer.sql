-- Warm transfer: an agent's transfers to a person go cold (straight through, as before) or warm (the caller on
-- hold while the human hears a summary of the call first). A call that ended transferred keeps where it went and
-- how, for its record and webhook.
ALTER TABLE agents ADD COLUMN transfer_mode text NOT NULL DEFAULT 'cold' CHECK (transfer_mode IN ('cold', 'warm'));
ALTER TABLE calls ADD COLUMN transfer_target text;
ALTER TABLE calls ADD COLUMN transfer_mode text CHECK (transfer_mode IN ('cold', 'warm'));
