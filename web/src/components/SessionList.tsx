import { useState } from "preact/hooks";
import { ARIA_KEYS } from "../state/keys";
import { useObservable } from "../state/observable";
import { newSessionForm } from "../state/projects";
import { openSearch } from "../state/search";
import { sessions, sessionsError, topLevel } from "../state/sessions";
import { groupByWorkspace } from "../util/projects";
import { NewSessionForm } from "./NewSessionForm";
import { SessionListItem } from "./SessionListItem";
import { WorkspaceGroup } from "./WorkspaceGroup";

export function SessionList({ activeId, headingLevel = 2 }: { activeId: string | null; headingLevel?: 1 | 2 }) {
  const Heading = headingLevel === 1 ? "h1" : "h2";
  const list = useObservable(sessions);
  const error = useObservable(sessionsError);
  // null: folded, unless the open session is an archived one (it stays in sight).
  const [showArchivedChoice, setShowArchived] = useState<boolean | null>(null);
  const creating = useObservable(newSessionForm);
  const setCreating = (open: boolean) => newSessionForm.set(open);
  // Subagents are reached from their parent's page, not listed here.
  const shown = topLevel(list ?? []);
  const active = shown.filter((s) => !s.archived);
  const archived = shown.filter((s) => s.archived);
  const showArchived = showArchivedChoice ?? archived.some((s) => s.id === activeId);

  return (
    <div class="session-list">
      <div class="session-list-head">
        <Heading>Sessions</Heading>
        <span class="spacer" />
        <button
          type="button"
          class="btn small ghost"
          onClick={() => openSearch()}
          aria-keyshortcuts="Control+K"
          title="Search every session (Ctrl+K)"
        >
          Search
        </button>
        <button
          type="button"
          class="btn small primary"
          onClick={() => setCreating(!creating)}
          aria-expanded={creating}
          aria-keyshortcuts={ARIA_KEYS.newSession}
          title="New session (Alt+N)"
        >
          {creating ? "Close" : "+ New"}
        </button>
      </div>
      {creating && <NewSessionForm onDone={() => setCreating(false)} />}
      {error && <p class="error small">Could not load sessions: {error}</p>}
      {list === null && !error && <p class="muted small pad">Loading…</p>}
      {list !== null && active.length === 0 && !creating && (
        <div class="list-empty" data-list-empty>
          <p class="list-empty-title">{archived.length > 0 ? "No active sessions. Archived ones are below." : "No sessions yet."}</p>
          <p class="muted small">
            A session is a conversation with the agent about one folder: it reads and edits the files there and runs
            commands, asking you first.
          </p>
          <button type="button" class="btn primary" onClick={() => setCreating(true)}>
            New session
          </button>
        </div>
      )}
      {/* By project: the sessions of each workspace folder together. */}
      <ul class="sessions" role="list">
        {groupByWorkspace(active).map((g) => (
          <WorkspaceGroup key={g.workspace} group={g} activeId={activeId} headingLevel={headingLevel === 1 ? 2 : 3} />
        ))}
      </ul>
      {archived.length > 0 && (
        <div class="archived">
          <button
            type="button"
            class="linklike small"
            aria-expanded={showArchived}
            onClick={() => setShowArchived(!showArchived)}
          >
            {showArchived ? "▾" : "▸"} Archived ({archived.length})
          </button>
          {showArchived && (
            <ul class="sessions" role="list">
              {archived.map((s) => (
                <SessionListItem key={s.id} session={s} active={s.id === activeId} />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
