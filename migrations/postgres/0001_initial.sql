-- Tradewind schema v1 (PostgreSQL). Never edit a shipped migration; add a new one.
-- Integers are 64-bit; JSON is TEXT; timestamps are Unix milliseconds.
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    agent       TEXT NOT NULL,
    mode        TEXT NOT NULL,
    archived    BIGINT NOT NULL DEFAULT 0,
    parent_id   TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    last_seq    BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
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
    created_at  BIGINT NOT NULL,
    started_at  BIGINT,
    finished_at BIGINT
);
CREATE INDEX runs_by_session ON runs (session_id, created_at);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE messages (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT,
    role        TEXT NOT NULL,
    parts       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, id);

CREATE TABLE events (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    run_id      TEXT,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
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
    created_at  BIGINT NOT NULL,
    decided_at  BIGINT
);
CREATE INDEX approvals_pending ON approvals (session_id, status);

CREATE TABLE grants (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    grant_key   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
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
    created_at  BIGINT NOT NULL,
    answered_at BIGINT
);

CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    revision    BIGINT NOT NULL,
    path        TEXT NOT NULL,
    meta        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX artifacts_by_session ON artifacts (session_id, created_at);

CREATE TABLE plans (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    revision    BIGINT NOT NULL,
    title       TEXT,
    hash        TEXT NOT NULL,
    status      TEXT NOT NULL,
    feedback    TEXT,
    created_at  BIGINT NOT NULL,
    decided_at  BIGINT
);

CREATE TABLE tasks (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    command       TEXT NOT NULL,
    cwd           TEXT NOT NULL,
    label         TEXT NOT NULL,
    status        TEXT NOT NULL,
    exit_code     BIGINT,
    error         TEXT,
    stopped_by    TEXT,
    pid           BIGINT,
    owner_pid     BIGINT NOT NULL,
    owner_start   BIGINT NOT NULL,
    log_path      TEXT NOT NULL,
    output_bytes  BIGINT NOT NULL DEFAULT 0,
    timeout_ms    BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    started_at    BIGINT,
    finished_at   BIGINT,
    read_at       BIGINT,
    claimed_at    BIGINT,
    delivered_at  BIGINT
);
CREATE INDEX tasks_by_session ON tasks (session_id, created_at);

CREATE TABLE goals (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    objective     TEXT NOT NULL,
    status        TEXT NOT NULL,
    token_budget  BIGINT,
    turn_cap      BIGINT,
    time_cap_ms   BIGINT,
    tokens_used   BIGINT NOT NULL DEFAULT 0,
    turns_used    BIGINT NOT NULL DEFAULT 0,
    summary       TEXT,
    evidence      TEXT,
    blocked_count BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE auth_settings (
    id                  BIGINT PRIMARY KEY CHECK (id = 1),
    password_hash       TEXT,
    password_changed_at BIGINT
);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);

CREATE TABLE login_sessions (
    id          TEXT PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
