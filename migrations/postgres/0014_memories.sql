-- Memories the agent keeps (memory_write): per workspace, or the user's (every workspace). A key
-- names one to replace; a generated tsvector with a GIN index finds the relevant ones.
CREATE TABLE memories (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    workspace   TEXT NOT NULL DEFAULT '',
    key         TEXT,
    text        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    search      tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(key, '') || ' ' || text)) STORED
);
CREATE UNIQUE INDEX memories_by_key ON memories (scope, workspace, key);
CREATE INDEX memories_search ON memories USING GIN (search);
