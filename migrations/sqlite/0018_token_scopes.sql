-- API tokens carry scopes (read, prompt, admin); tokens made before keep all three.
ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read,prompt,admin';
