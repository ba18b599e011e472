-- A session working in its own git worktree (`POST /api/sessions {worktree: true}`): what the
-- server created, as JSON (repository, common git directory, branch, base, folder).
ALTER TABLE sessions ADD COLUMN worktree TEXT;

-- Line comments on a session's review (a diff line) or on a plan's lines, sent back to the agent.
CREATE TABLE review_comments (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    plan_id     TEXT,
    revision    INTEGER,
    path        TEXT NOT NULL DEFAULT '',
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    side        TEXT NOT NULL DEFAULT 'new',
    quote       TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL,
    status      TEXT NOT NULL,
    answer      TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX review_comments_by_session ON review_comments (session_id, created_at);
