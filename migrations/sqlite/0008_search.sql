-- Full-text search over every session: prompts, answers, tool calls and tool results, kept in
-- step with the event log by triggers (whatever writes events: the writer, a fork's copy). Each
-- entry's rowid is its event's rowid, so a deleted event (a deleted session) leaves by key.
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

INSERT INTO search_index (rowid, body)
SELECT rowid, substr(CASE type
        WHEN 'tool_call' THEN json_extract(data, '$.tool') || ' ' || json_extract(data, '$.input')
        ELSE json_extract(data, '$.text')
    END, 1, 20000)
FROM events
WHERE type IN ('user_message', 'message_complete', 'tool_call', 'tool_result');
