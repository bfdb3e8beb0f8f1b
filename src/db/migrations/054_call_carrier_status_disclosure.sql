-- The carrier's own word for how a call went (its status, error code or hang-up cause), kept beside our
-- ended_reason; and when the AI disclosure finished playing in full (null: it never did).
ALTER TABLE calls ADD COLUMN carrier_status text;
ALTER TABLE calls ADD COLUMN disclosure_delivered_at timestamptz;
