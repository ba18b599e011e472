-- Memories the agent keeps (memory_write): per workspace, or the user's (every workspace). A key
-- names one to replace; full-text search (FTS5, kept in step by triggers) finds the relevant ones.
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
