import { useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Task } from "../api/types";
import { duration } from "../util/format";
import { VisibleText } from "./VisibleText";

const LIVE = new Set(["queued", "running", "stopping"]);

export function TasksPanel({ tasks }: { tasks: Task[] }) {
  const [open, setOpen] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const live = tasks.filter((t) => LIVE.has(t.state)).length;
  const stop = async (id: string) => {
    try {
      await api.stopTask(id);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <details class="tasks-panel" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        Background tasks <span class="badge">{live} running</span>
      </summary>
      <ul class="tasks">
        {[...tasks].reverse().map((t) => {
          const end = t.ended_at ?? Date.now();
          return (
            <li key={t.id} class={`task task-${t.state}`}>
              <span class={`badge badge-task-${t.state}`}>{t.state}</span>
              <span class="task-label">{t.label || t.id}</span>
              {t.command && (
                <code class="task-cmd">
                  <VisibleText text={String(t.command)} />
                </code>
              )}
              {t.pid != null && <span class="muted small">pid {t.pid}</span>}
              {t.started_at != null && <span class="muted small">{duration(end - t.started_at)}</span>}
              {t.exit_code != null && <span class="muted small">exit {t.exit_code}</span>}
              {LIVE.has(t.state) && (
                <button type="button" class="btn small danger" onClick={() => void stop(t.id)}>
                  Stop
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {error && <p class="error small">{error}</p>}
    </details>
  );
}
