-- "Allow commands like this": the argv prefix an approval offered, and rules kept for a
-- workspace (every session working there) rather than one session.
ALTER TABLE approvals ADD COLUMN prefix TEXT;

CREATE TABLE workspace_grants (
    workspace   TEXT NOT NULL,
    grant_key   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (workspace, grant_key)
);
