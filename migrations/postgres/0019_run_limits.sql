-- A run's own limits on top of the server's start flags (tradewind run through a server): JSON.
ALTER TABLE runs ADD COLUMN limits TEXT;
