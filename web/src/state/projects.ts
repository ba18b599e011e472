// What the session list does to a session or a project (a workspace folder): rename, fork, delete
// (asked first), a new session in the folder; and whether the list's new-session form is open, so
// that an empty state elsewhere can open it.
import { ApiError, api } from "../api/client";
import type { Session } from "../api/types";
import { askConfirm } from "./confirm";
import { drafts } from "./drafts";
import { Observable } from "./observable";
import { navigate, route, sessionPath } from "./router";
import { removeSession, upsertSession } from "./sessions";

/** The list's "+ New" form is open. */
export const newSessionForm = new Observable(false);

export function sessionTitle(s: Session): string {
  return s.title || "Untitled session";
}

/**
 * Asked before a session is deleted: true when the user confirms. A session in a worktree of its
 * own says that the worktree's folder goes and its branch stays.
 */
export function confirmDeleteSession(s: Session): Promise<boolean> {
  const wt = s.worktree;
  return askConfirm({
    title: `Delete the session “${sessionTitle(s)}”?`,
    body: wt
      ? `Its transcript is deleted with it, and its worktree folder ${wt.dir} is removed; its branch ${wt.branch} is kept. This cannot be undone.`
      : "Its transcript is deleted with it. This cannot be undone.",
    confirm: "Delete",
    danger: true,
  });
}

/**
 * Delete a session: it leaves the list, its draft goes, and a page that shows it goes home. When
 * its worktree has uncommitted changes the server refuses (409 `uncommitted_changes`, its message
 * naming them): the user is asked again, and only then is it deleted with them. Resolves whether
 * it was deleted.
 */
export async function deleteSession(s: Session): Promise<boolean> {
  try {
    await api.deleteSession(s.id);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "uncommitted_changes")) throw e;
    const anyway = await askConfirm({
      title: "Its worktree has uncommitted changes",
      body: e.message,
      confirm: "Delete anyway (discard uncommitted changes)",
      danger: true,
    });
    if (!anyway) return false;
    await api.deleteSession(s.id, true);
  }
  removeSession(s.id);
  void drafts.clear(s.id);
  const r = route.get();
  if (r.name === "session" && r.id === s.id) navigate("/");
  return true;
}

export async function renameSession(s: Session, title: string): Promise<void> {
  upsertSession(await api.patchSession(s.id, { title }));
}

/** A copy of the whole conversation as a new session, opened. The original must be idle. */
export async function forkSession(s: Session): Promise<void> {
  const f = await api.forkWhole(s.id);
  upsertSession(f.session);
  navigate(sessionPath(f.session.id));
}

/** A new session in `workspace`, with the server's defaults, opened. */
export async function createSessionIn(workspace: string): Promise<void> {
  const s = await api.createSession({ workspace });
  upsertSession(s);
  newSessionForm.set(false);
  navigate(sessionPath(s.id));
}
