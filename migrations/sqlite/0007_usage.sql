-- Every model call's usage and cost. Kept when its session is deleted: the day's spend and the
-- usage report stay true.
CREATE TABLE model_calls (
    id                  TEXT PRIMARY KEY,
    session_id          TEXT NOT NULL,
    run_id              TEXT,
    provider            TEXT NOT NULL,
    model               TEXT NOT NULL,
    purpose             TEXT NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    reasoning_tokens    INTEGER NOT NULL,
    cost_usd            REAL,
    context_window      INTEGER NOT NULL,
    created_at          INTEGER NOT NULL
);
CREATE INDEX model_calls_by_session ON model_calls (session_id, created_at);
CREATE INDEX model_calls_by_time ON model_calls (created_at);
-- A session's own spend cap (USD), replacing `spend.sessionUsd`.
ALTER TABLE sessions ADD COLUMN spend_cap_usd REAL;
