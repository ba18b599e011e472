-- What the browser could not render of a pending plan's diagrams (JSON array of
-- {diagram_id, message}), reported by the web app so the model learns it on the decision.
ALTER TABLE plans ADD COLUMN render_errors TEXT;
