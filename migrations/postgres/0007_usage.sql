-- Every model call's usage and cost. Kept when its session is deleted: the day's spend and the
-- usage report stay true.
CREATE TABLE model_calls (
    id                  TEXT PRIMARY KEY,
    session_id          TEXT NOT NULL,
    run_id              TEXT,
    provider            TEXT NOT NULL,
    model               TEXT NOT NULL,
    purpose             TEXT NOT NULL,
    input_tokens        BIGINT NOT NULL,
    output_tokens       BIGINT NOT NULL,
    cached_input_tokens BIGINT NOT NULL,
    reasoning_tokens    BIGINT NOT NULL,
    cost_usd            DOUBLE PRECISION,
    context_window      BIGINT NOT NULL,
    created_at          BIGINT NOT NULL
);
CREATE INDEX model_calls_by_session ON model_calls (session_id, created_at);
CREATE INDEX model_calls_by_time ON model_calls (created_at);
-- A session's own spend cap (USD), replacing `spend.sessionUsd`.
ALTER TABLE sessions ADD COLUMN spend_cap_usd DOUBLE PRECISION;
