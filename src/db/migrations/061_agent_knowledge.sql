-- An agent's knowledge base: question/answer pairs or short facts ([{question?, answer}], at most 50, validated by
-- the API) the scripted engine answers callers' questions from, and a language model gets in its prompt.
ALTER TABLE agents ADD COLUMN knowledge jsonb NOT NULL DEFAULT '[]'::jsonb;
