-- The images a prompt carries (a JSON list of references to files under the state directory's
-- attachments/), kept with its run so a queued prompt keeps them across a restart; NULL: none.
ALTER TABLE runs ADD COLUMN images TEXT;
