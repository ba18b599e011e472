-- What a revert took back: `both` (files and conversation), `files` (the conversation stays) or
-- `conversation` (the files stay).
ALTER TABLE reverts ADD COLUMN scope TEXT NOT NULL DEFAULT 'both';
