-- What an agent does when a machine answers (answering-machine detection): hang up, or leave voicemail_message
-- (default: its disclosure) after the beep; and the number a transfer to a human dials for it (E.164; none =
-- the tenant's HUMAN_TRANSFER_NUMBER).
ALTER TABLE agents ADD COLUMN voicemail text NOT NULL DEFAULT 'hang_up' CHECK (voicemail IN ('hang_up', 'leave_message'));
ALTER TABLE agents ADD COLUMN voicemail_message text;
ALTER TABLE agents ADD COLUMN transfer_number text;
