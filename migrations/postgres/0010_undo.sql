-- Undo: each run of the build agent records the workspace's snapshot (a tree in the hidden
-- store under the state directory) before and after it; a revert puts the files back as they
-- were before a run and hides that run and the later ones from the model until it is undone.
CREATE TABLE snapshots (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    tree        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX snapshots_by_session ON snapshots (session_id, created_at);
CREATE TABLE reverts (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL,
    from_tree   TEXT NOT NULL,
    to_tree     TEXT NOT NULL,
    files       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    undone_at   BIGINT
);
CREATE INDEX reverts_by_session ON reverts (session_id, created_at);
