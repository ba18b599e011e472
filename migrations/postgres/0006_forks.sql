-- A fork ("edit and resend"): a new session holding the conversation of another up to one of
-- its user messages. The original stays as it was.
ALTER TABLE sessions ADD COLUMN forked_from_session TEXT;
ALTER TABLE sessions ADD COLUMN forked_from_seq BIGINT;
