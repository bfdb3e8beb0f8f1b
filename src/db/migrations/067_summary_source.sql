-- Who wrote a call's summary: 'model' (the dialog model, when one is configured and answered in time) or 'fields'
-- (built from the extracted fields, src/dialog/summary.ts). Demo conversations get the same summary when they end.
ALTER TABLE calls ADD COLUMN summary_source text;
ALTER TABLE conversations ADD COLUMN summary text;
ALTER TABLE conversations ADD COLUMN summary_source text;
