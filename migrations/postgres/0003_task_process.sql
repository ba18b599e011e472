-- Enough to find a task's process after a crash and be sure it is still the same process: its
-- start time (clock ticks since boot) and the boot it started in.
ALTER TABLE tasks ADD COLUMN pid_start BIGINT;
ALTER TABLE tasks ADD COLUMN boot_id TEXT;
