// The session list by project: the sessions of one workspace folder together, the folder whose
// session changed last first, each group in the list's own order (newest first).
import type { Session } from "../api/types";
import { trimSlashes } from "./workspaces";

export interface WorkspaceGroup {
  /** The folder, as the sessions name it. */
  workspace: string;
  /** What the group is called: the folder's last part. */
  name: string;
  sessions: Session[];
}

/** A folder's last part ("/home/ann/code/app" → "app"); "/" for the root. */
export function workspaceName(path: string): string {
  const p = trimSlashes(path);
  if (p === "/" || p === "") return p || "/";
  return p.slice(p.lastIndexOf("/") + 1) || p;
}

/** `list` (sorted newest first) grouped by workspace: groups in the order their newest session comes. */
export function groupByWorkspace(list: readonly Session[]): WorkspaceGroup[] {
  const groups = new Map<string, WorkspaceGroup>();
  for (const s of list) {
    const key = trimSlashes(s.workspace);
    let g = groups.get(key);
    if (!g) {
      g = { workspace: s.workspace, name: workspaceName(s.workspace), sessions: [] };
      groups.set(key, g);
    }
    g.sessions.push(s);
  }
  return [...groups.values()];
}
