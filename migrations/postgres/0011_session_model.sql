-- A session's own provider (an id from the configured providers) and model; NULL: the default
-- provider, and that provider's default model.
ALTER TABLE sessions ADD COLUMN provider TEXT;
ALTER TABLE sessions ADD COLUMN model TEXT;
