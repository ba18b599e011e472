-- A session's goal (one at a time): its objective, status, budgets and what was used of them,
-- the blocked streak, and the agent's reports (JSON, oldest first).
-- The placeholder table of the first migration was never used: replaced.
DROP TABLE goals;
CREATE TABLE goals (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
    objective         TEXT NOT NULL,
    status            TEXT NOT NULL,
    budget_turns      BIGINT NOT NULL,
    budget_tokens     BIGINT NOT NULL,
    budget_minutes    BIGINT NOT NULL,
    used_turns        BIGINT NOT NULL DEFAULT 0,
    used_tokens       BIGINT NOT NULL DEFAULT 0,
    used_ms           BIGINT NOT NULL DEFAULT 0,
    blocked_streak    BIGINT NOT NULL DEFAULT 0,
    last_blocked_turn BIGINT NOT NULL DEFAULT 0,
    reason            TEXT,
    reports           TEXT NOT NULL DEFAULT '[]',
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
