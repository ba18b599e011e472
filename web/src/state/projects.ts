// What the session list does to a session or a project (a workspace folder): rename, fork, delete
// (asked first), a new session in the folder; and whether the list's new-session form is open, so
// that an empty state elsewhere can open it.
import { api } from "../api/client";
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

/** Asked before a session is deleted: true when the user confirms. */
export function confirmDeleteSession(s: Session): Promise<boolean> {
  return askConfirm({
    title: `Delete the session “${sessionTitle(s)}”?`,
    body: "Its transcript is deleted with it. This cannot be undone.",
    confirm: "Delete",
    danger: true,
  });
}

/** Delete a session: it leaves the list, its draft goes, and a page that shows it goes home. */
export async function deleteSession(s: Session): Promise<void> {
  await api.deleteSession(s.id);
  removeSession(s.id);
  void drafts.clear(s.id);
  const r = route.get();
  if (r.name === "session" && r.id === s.id) navigate("/");
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
