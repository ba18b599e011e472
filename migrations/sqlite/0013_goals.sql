-- A session's goal (one at a time): its objective, status, budgets and what was used of them,
-- the blocked streak, and the agent's reports (JSON, oldest first).
-- The placeholder table of the first migration was never used: replaced.
DROP TABLE goals;
CREATE TABLE goals (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
    objective         TEXT NOT NULL,
    status            TEXT NOT NULL,
    budget_turns      INTEGER NOT NULL,
    budget_tokens     INTEGER NOT NULL,
    budget_minutes    INTEGER NOT NULL,
    used_turns        INTEGER NOT NULL DEFAULT 0,
    used_tokens       INTEGER NOT NULL DEFAULT 0,
    used_ms           INTEGER NOT NULL DEFAULT 0,
    blocked_streak    INTEGER NOT NULL DEFAULT 0,
    last_blocked_turn INTEGER NOT NULL DEFAULT 0,
    reason            TEXT,
    reports           TEXT NOT NULL DEFAULT '[]',
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
