-- A few sentences on how the call went (who, what they want, budget, next step, open questions), written when the
-- call ends: by the model-backed dialog when it gives one, else from the extracted fields (src/dialog/summary.ts).
ALTER TABLE calls ADD COLUMN summary text;
