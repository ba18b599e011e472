-- Subagent sessions are found by their parent (the task tools, the children listing, the
-- parent's pending prompts).
CREATE INDEX sessions_by_parent ON sessions (parent_id);

-- What an approval showed beyond its reason (JSON: every reason, warnings, the directory an
-- answer covers), so a parent session can show its subagents' approvals in full.
ALTER TABLE approvals ADD COLUMN detail TEXT;
