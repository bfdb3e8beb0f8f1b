-- A qualify script may be written as text (instructions and questions in prose). The text is kept as written in
-- qualify_text; qualify_script keeps the ordered {field, question} steps the scripted engine walks (derived from
-- the text when there is one), so every reader of qualify_script (call snapshots, the demo) still finds steps.
ALTER TABLE agents ADD COLUMN qualify_text text;
