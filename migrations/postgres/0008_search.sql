-- Full-text search over every session: prompts, answers, tool calls and tool results. The
-- searchable text and its tsvector are generated columns of the event log, so every write
-- (the writer, a fork's copy) keeps them in step, and a GIN index answers the queries.
ALTER TABLE events ADD COLUMN search_text TEXT GENERATED ALWAYS AS (
    CASE WHEN type = 'tool_call' THEN left((data::jsonb ->> 'tool') || ' ' || (data::jsonb ->> 'input'), 20000)
         WHEN type IN ('user_message', 'message_complete', 'tool_result') THEN left(data::jsonb ->> 'text', 20000)
         ELSE NULL END
) STORED;
ALTER TABLE events ADD COLUMN search tsvector GENERATED ALWAYS AS (
    to_tsvector('simple', coalesce(
        CASE WHEN type = 'tool_call' THEN left((data::jsonb ->> 'tool') || ' ' || (data::jsonb ->> 'input'), 20000)
             WHEN type IN ('user_message', 'message_complete', 'tool_result') THEN left(data::jsonb ->> 'text', 20000)
             ELSE NULL END, ''))
) STORED;
CREATE INDEX events_search ON events USING GIN (search);
