-- Tradewind's SQLite schema after 23 migrations (the last 23), digest ab2343c39e7cc5cb08b0ae20.
-- Made by the test `the_sqlite_schema_snapshot_is_what_the_migrations_make` (TRADEWIND_BLESS=1); never edited by hand.
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    agent       TEXT NOT NULL,
    mode        TEXT NOT NULL,
    archived    INTEGER NOT NULL DEFAULT 0,
    parent_id   TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    last_seq    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
, forked_from_session TEXT, forked_from_seq INTEGER, spend_cap_usd REAL, reasoning_effort TEXT, provider TEXT, model TEXT, worktree TEXT);
CREATE INDEX sessions_by_activity ON sessions (updated_at DESC, id DESC);
CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    trigger     TEXT NOT NULL,
    input       TEXT NOT NULL,
    agent       TEXT NOT NULL,
    error       TEXT,
    usage       TEXT,
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER
, images TEXT, limits TEXT);
CREATE INDEX runs_by_session ON runs (session_id, created_at);
CREATE INDEX runs_by_status ON runs (status);
CREATE TABLE messages (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT,
    role        TEXT NOT NULL,
    parts       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, id);
CREATE TABLE events (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    run_id      TEXT,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE approvals (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    tool        TEXT NOT NULL,
    effect      TEXT NOT NULL,
    scope       TEXT NOT NULL,
    grant_key   TEXT NOT NULL,
    input       TEXT NOT NULL,
    reason      TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    decided_at  INTEGER
, prefix TEXT, detail TEXT);
CREATE INDEX approvals_pending ON approvals (session_id, status);
CREATE TABLE grants (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    grant_key   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, grant_key)
);
CREATE TABLE questions (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    questions   TEXT NOT NULL,
    answers     TEXT,
    status      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    answered_at INTEGER
);
CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    path        TEXT NOT NULL,
    meta        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX artifacts_by_session ON artifacts (session_id, created_at);
CREATE TABLE plans (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    title       TEXT,
    hash        TEXT NOT NULL,
    status      TEXT NOT NULL,
    feedback    TEXT,
    created_at  INTEGER NOT NULL,
    decided_at  INTEGER
, render_errors TEXT);
CREATE TABLE tasks (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    command       TEXT NOT NULL,
    cwd           TEXT NOT NULL,
    label         TEXT NOT NULL,
    status        TEXT NOT NULL,
    exit_code     INTEGER,
    error         TEXT,
    stopped_by    TEXT,
    pid           INTEGER,
    owner_pid     INTEGER NOT NULL,
    owner_start   INTEGER NOT NULL,
    log_path      TEXT NOT NULL,
    output_bytes  INTEGER NOT NULL DEFAULT 0,
    timeout_ms    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    finished_at   INTEGER,
    read_at       INTEGER,
    claimed_at    INTEGER,
    delivered_at  INTEGER
, pid_start INTEGER, boot_id TEXT);
CREATE INDEX tasks_by_session ON tasks (session_id, created_at);
CREATE TABLE auth_settings (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    password_hash       TEXT,
    password_changed_at INTEGER
);
CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
, scopes TEXT NOT NULL DEFAULT 'read,prompt,admin');
CREATE TABLE login_sessions (
    id          TEXT PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    revoked_at  INTEGER
, user_agent TEXT, last_seen_at INTEGER, last_ip TEXT, label TEXT, signin_ip TEXT);
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE workspace_grants (
    workspace   TEXT NOT NULL,
    grant_key   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (workspace, grant_key)
);
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
CREATE VIRTUAL TABLE search_index USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER events_search_insert AFTER INSERT ON events
WHEN new.type IN ('user_message', 'message_complete', 'tool_call', 'tool_result')
BEGIN
    INSERT INTO search_index (rowid, body) VALUES (
        new.rowid,
        substr(CASE new.type
            WHEN 'tool_call' THEN json_extract(new.data, '$.tool') || ' ' || json_extract(new.data, '$.input')
            ELSE json_extract(new.data, '$.text')
        END, 1, 20000)
    );
END;
CREATE TRIGGER events_search_delete AFTER DELETE ON events
WHEN old.type IN ('user_message', 'message_complete', 'tool_call', 'tool_result')
BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid;
END;
CREATE TABLE snapshots (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    tree        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX snapshots_by_session ON snapshots (session_id, created_at);
CREATE TABLE reverts (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    from_tree   TEXT NOT NULL,
    to_tree     TEXT NOT NULL,
    files       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    undone_at   INTEGER
, scope TEXT NOT NULL DEFAULT 'both');
CREATE INDEX reverts_by_session ON reverts (session_id, created_at);
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
CREATE TABLE memories (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    workspace   TEXT NOT NULL DEFAULT '',
    key         TEXT,
    text        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX memories_by_key ON memories (scope, workspace, key);
CREATE VIRTUAL TABLE memories_index USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER memories_index_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_index (rowid, body) VALUES (new.rowid, coalesce(new.key, '') || ' ' || new.text);
END;
CREATE TRIGGER memories_index_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memories_index WHERE rowid = old.rowid;
END;
CREATE TRIGGER memories_index_update AFTER UPDATE ON memories BEGIN
    DELETE FROM memories_index WHERE rowid = old.rowid;
    INSERT INTO memories_index (rowid, body) VALUES (new.rowid, coalesce(new.key, '') || ' ' || new.text);
END;
CREATE INDEX sessions_by_parent ON sessions (parent_id);
CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    login_session_id TEXT,
    token_id TEXT,
    user_agent TEXT,
    created_at BIGINT NOT NULL,
    last_sent_at BIGINT,
    last_error TEXT
);
CREATE INDEX questions_pending ON questions (session_id, status);
CREATE INDEX plans_pending ON plans (session_id, status);
CREATE INDEX sessions_roots_by_activity ON sessions (parent_id, updated_at DESC, id DESC);
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
