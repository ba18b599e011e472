// The commit panel of a session: whether it shows, and whether the session's workspace is a git
// repository at all (no button without one).
import { ApiError, gitApi } from "../api/client";
import { Observable } from "./observable";

/** The session whose commit panel shows (one at a time), or null. */
export const commitPanel = new Observable<string | null>(null);

export function toggleCommitPanel(session: string): void {
  commitPanel.set(commitPanel.get() === session ? null : session);
}

export function closeCommitPanel(): void {
  commitPanel.set(null);
}

/** Whether each session's workspace is a git repository (null: not known yet, or could not be read). */
const repos = new Map<string, Observable<boolean | null>>();

/** Whether the session works in a git repository: asked once (a 422 says it does not). */
export function gitRepo(session: string): Observable<boolean | null> {
  let o = repos.get(session);
  if (!o) {
    const made = new Observable<boolean | null>(null);
    repos.set(session, made);
    gitApi.state(session).then(
      () => made.set(true),
      (e) => {
        if (e instanceof ApiError && (e.status === 422 || e.status === 404)) made.set(false);
        // Another failure (offline): asked again next time.
        else repos.delete(session);
      },
    );
    o = made;
  }
  return o;
}
