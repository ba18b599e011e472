-- The session list derives each session's status from what waits for the user: questions and
-- plans are looked up by session and status, like approvals (one index lookup per session, not a
-- scan of every question and plan).
CREATE INDEX questions_pending ON questions (session_id, status);
CREATE INDEX plans_pending ON plans (session_id, status);
