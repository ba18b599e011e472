-- A session's reasoning effort (low, medium, high), sent to reasoning models; NULL: not sent.
ALTER TABLE sessions ADD COLUMN reasoning_effort TEXT;
