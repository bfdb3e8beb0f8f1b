-- A user's JWTs carry the token_version they were issued at; raising it (sign-out everywhere, a role or password
-- change) revokes every token issued before. Deleting the user revokes them too: the row is gone.
ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0;
