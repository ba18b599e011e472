-- A device's name the user gave it (Settings › Devices: four "Chrome on Linux" told apart), and
-- the address it signed in from.
ALTER TABLE login_sessions ADD COLUMN label TEXT;
ALTER TABLE login_sessions ADD COLUMN signin_ip TEXT;
