-- Web Push subscriptions (a browser's push endpoint and its keys), each owned by the sign-in
-- (login session or API token) that registered it and removed when that is revoked.
CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    login_session_id TEXT,
    token_id TEXT,
    user_agent TEXT,
    created_at BIGINT NOT NULL,
    last_sent_at BIGINT,
    last_error TEXT
);
