import { useState } from "preact/hooks";
import { api } from "../api/client";
import { useAction } from "../state/action";
import { useClearNetworkError } from "../state/reconnect";
import type { Session } from "../api/types";
import { artifactsPanel, closeArtifacts, openArtifacts, permissionsPanel, togglePermissions } from "../state/panels";
import { useObservable } from "../state/observable";
import { confirmDeleteSession, deleteSession } from "../state/projects";
import { linkClick, reviewPath, sessionPath } from "../state/router";
import { upsertSession } from "../state/sessions";
import type { ContextState } from "../state/transcript";
import { AgentMenu } from "./AgentMenu";
import { ExportMenu } from "./ExportMenu";
import { FormError } from "./FormError";
import { ModelMenu } from "./ModelMenu";
import { ReasoningMenu } from "./ReasoningMenu";
import { SessionToolButtons } from "./SessionToolButtons";
import { StatusBadge } from "./StatusBadge";
import { UsageSummary } from "./UsageSummary";
import { WorkspacePath } from "./WorkspacePath";
import { WorktreeChip } from "./WorktreeChip";

export function SessionHeader({
  session,
  usageMarks,
  context,
  reviewing = false,
}: {
  session: Session | null;
  /** The session's review is shown (its link leads back to the conversation). */
  reviewing?: boolean;
  /** The transcript's count of usage-changing events: the cost is read again when it moves (null: not yet). */
  usageMarks: number | null;
  /** The context fill the transcript's events tell of. */
  context: ContextState | null;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");
  /**
   * At phone width: the workspace, agent, reasoning, usage, Rename, Archive and Delete show (without
   * them the header is the title line and the everyday actions).
   */
  const [details, setDetails] = useState(false);
  /** Rename, archive or delete: each is one request, and a failure says why under the header. */
  const action = useAction((work: () => Promise<unknown>) => work());
  useClearNetworkError(action.error, () => action.setError(null));
  const artifacts = useObservable(artifactsPanel);
  const permissions = useObservable(permissionsPanel);

  if (!session) return <header class="session-header"><span class="muted">Loading session…</span></header>;
  const s = session;

  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      upsertSession(await api.patchSession(s.id, { title: draft.trim() }));
      setEditing(false);
    });
  };

  const archive = () =>
    action.run(async () => {
      upsertSession(await api.patchSession(s.id, { archived: !s.archived }));
    });

  const remove = async () => {
    if (await confirmDeleteSession(s)) void action.run(() => deleteSession(s));
  };

  return (
    <header class={`session-header${details ? " details-open" : ""}`}>
      <div class="session-header-main">
        {editing ? (
          <form class="rename" onSubmit={save}>
            <input
              aria-label="Session title"
              value={draft}
              onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => e.key === "Escape" && setEditing(false)}
              autofocus
            />
            <button type="submit" class="btn small primary">Save</button>
            <button type="button" class="btn small ghost" onClick={() => setEditing(false)}>Cancel</button>
          </form>
        ) : (
          <h1 class="session-name">
            <span class="session-name-text">{s.title || "Untitled session"}</span>
            <StatusBadge status={s.status} />
            {s.archived && <span class="badge">archived</span>}
          </h1>
        )}
        <button
          type="button"
          class="icon-btn session-more"
          aria-expanded={details}
          aria-label="Session details"
          title={details ? "Hide the session's details" : "Show the workspace, agent, reasoning, usage, and Rename, Archive and Delete"}
          onClick={() => setDetails(!details)}
        >
          <span aria-hidden="true">{details ? "▴" : "▾"}</span>
        </button>
        <div class="session-sub">
          <WorkspacePath path={s.workspace} />
          {s.worktree && <WorktreeChip worktree={s.worktree} />}
          <AgentMenu session={s} />
          <ModelMenu session={s} />
          <ReasoningMenu session={s} />
          <UsageSummary sessionId={s.id} marks={usageMarks} context={context} />
        </div>
      </div>
      <div class="session-actions">
        <a
          class="btn small ghost review-toggle"
          href={reviewing ? sessionPath(s.id) : reviewPath(s.id)}
          title={reviewing ? "Back to the conversation" : "Everything this session changed, as one diff, with line comments"}
          onClick={(e) => linkClick(e, reviewing ? sessionPath(s.id) : reviewPath(s.id))}
        >
          {reviewing ? "Conversation" : "Review"}
        </a>
        <button
          type="button"
          class="btn small ghost"
          aria-pressed={!!artifacts}
          onClick={() => (artifacts ? closeArtifacts() : openArtifacts())}
        >
          Artifacts
        </button>
        <button type="button" class="btn small ghost" aria-pressed={permissions} onClick={togglePermissions}>
          Permissions
        </button>
        <SessionToolButtons session={s} />
        {!editing && (
          <button
            type="button"
            class="btn small ghost more-action"
            onClick={() => {
              setDraft(s.title);
              setEditing(true);
            }}
          >
            Rename
          </button>
        )}
        <ExportMenu session={s} />
        <button type="button" class="btn small ghost more-action" onClick={() => void archive()}>
          {s.archived ? "Unarchive" : "Archive"}
        </button>
        <button type="button" class="btn small ghost danger more-action" onClick={() => void remove()}>
          Delete
        </button>
      </div>
      <FormError error={action.error} small />
    </header>
  );
}
