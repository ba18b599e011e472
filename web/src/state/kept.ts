// The files a revert or redo leaves as they are (`kept`): changed by hand, or by another
// session's runs in the same workspace. The dialog lists them apart, unticked; the ticked ones are
// sent back as `include`, and the server puts them back too.
import type { KeptFile } from "../api/types";

/** A session's name for people: its title, else its id; `null` when the list does not know it. */
export type SessionTitle = (id: string) => string | null;

/** “Title” (a session the list knows), else the id as it is. */
function sessionName(id: string, title: SessionTitle): string {
  const t = title(id)?.trim();
  return t ? `“${t}”` : id;
}

/** Who changed a kept file: "changed by hand", "changed by session “Title”" (or its id). */
export function changedByText(k: KeptFile, title: SessionTitle): string {
  if (k.changed_by === "hand" || k.sessions.length === 0) return "changed by hand";
  const names = k.sessions.map((id) => sessionName(id, title));
  if (names.length === 1) return `changed by session ${names[0]}`;
  return `changed by sessions ${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * The ticked paths that `kept` still lists, in its order: what goes in `include`. A tick on a file
 * a newer check no longer keeps (it changed back, or it is now this session's own) is dropped.
 */
export function includedPaths(kept: readonly KeptFile[], ticked: readonly string[]): string[] {
  const on = new Set(ticked);
  return kept.filter((k) => on.has(k.path)).map((k) => k.path);
}

/** `ticked` with `path` ticked (`on`) or not, each path once. */
export function tick(ticked: readonly string[], path: string, on: boolean): string[] {
  const rest = ticked.filter((p) => p !== path);
  return on ? [...rest, path] : rest;
}
