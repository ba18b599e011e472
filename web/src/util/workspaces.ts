// What the new-session form says of a workspace before a session starts there: the server's
// warning for a folder it listed (a recent workspace, the picker's folder), else the same rule
// applied here to a typed path — a system folder, or the home folder itself.

/** The folders no session should work in, as the server names them. */
export const SYSTEM_FOLDERS: readonly string[] = ["/", "/etc", "/usr", "/var", "/bin", "/boot"];

/** A folder the server listed, with what it says before a session starts there. */
export interface KnownFolder {
  path: string;
  warning?: string | null;
}

/** `path` trimmed, without its trailing slashes (`/` stays `/`). */
export function trimSlashes(path: string): string {
  const t = path.trim();
  const bare = t.replace(/\/+$/, "");
  return bare === "" && t.startsWith("/") ? "/" : bare;
}

/**
 * The warning for `typed` (null: none): the server's own words when it listed that folder
 * (`known`); else, for exactly a system folder or the home folder (`home`: known once the server
 * listed it), a sentence of the same kind.
 */
export function workspaceWarning(typed: string, known: readonly KnownFolder[], home: string | null): string | null {
  const p = trimSlashes(typed);
  if (p === "") return null;
  const listed = known.find((k) => trimSlashes(k.path) === p);
  if (listed) return listed.warning ?? null;
  if (SYSTEM_FOLDERS.includes(p)) return `${p} is a system folder: a session there can change what the whole machine runs`;
  if (home !== null && trimSlashes(home) === p) {
    return `${p} is your home folder itself: every file of yours would be in the session's reach; pick a project folder`;
  }
  return null;
}
