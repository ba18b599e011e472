-- Devices: each browser login session remembers what signed in (a name from its user agent), when
-- it was last seen and from where, so Settings can list and revoke devices; idle expiry reads
-- last_seen_at.
ALTER TABLE login_sessions ADD COLUMN user_agent TEXT;
ALTER TABLE login_sessions ADD COLUMN last_seen_at BIGINT;
ALTER TABLE login_sessions ADD COLUMN last_ip TEXT;
