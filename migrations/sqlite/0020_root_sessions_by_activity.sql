-- The session list pages through root sessions (`parent_id IS NULL`) newest first. With only
-- `sessions_by_activity` and `sessions_by_parent`, the planner took every root session by
-- parent and sorted them, deriving each one's status before the LIMIT: a page of 50 cost the
-- status lookups of every session. This index gives the roots already in list order, so a page
-- reads its 51 rows and stops.
CREATE INDEX sessions_roots_by_activity ON sessions (parent_id, updated_at DESC, id DESC);
