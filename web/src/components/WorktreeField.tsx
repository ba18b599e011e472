import { useEffect, useId, useState } from "preact/hooks";
import { api } from "../api/client";
import type { BranchList } from "../api/types";
import "../review.css";

/** How long the typing of a workspace folder pauses before its branches are read (ms). */
const SETTLE_MS = 250;

/**
 * The branches of the repository `workspace` is in (null: it is in none, or not known yet), read
 * again when the folder changes.
 */
export function useBranches(workspace: string): BranchList | null {
  const [list, setList] = useState<BranchList | null>(null);
  useEffect(() => {
    setList(null);
    if (!workspace) return;
    const stop = new AbortController();
    const t = setTimeout(() => {
      api.branches(workspace, stop.signal).then(
        (l) => setList(l),
        () => undefined, // not a repository (422), or not a folder the server may read
      );
    }, SETTLE_MS);
    return () => {
      clearTimeout(t);
      stop.abort();
    };
  }, [workspace]);
  return list;
}

/**
 * The new-session form's "Work in its own worktree" (offered when the workspace is in a git
 * repository) and the branch the worktree starts from (its main checkout's branch unless another
 * is picked).
 */
export function WorktreeField({
  branches,
  on,
  base,
  onChange,
}: {
  branches: BranchList;
  on: boolean;
  /** null: the main checkout's branch. */
  base: string | null;
  onChange: (on: boolean, base: string | null) => void;
}) {
  const hint = useId();
  const current = branches.current ?? null;
  const shown = base ?? current ?? "";
  return (
    <div class="worktree-field">
      <label class="worktree-check">
        <input type="checkbox" name="worktree" checked={on} aria-describedby={hint} onChange={(e) => onChange((e.target as HTMLInputElement).checked, base)} />
        Work in its own worktree
      </label>
      <p class="small muted" id={hint}>
        A folder and a branch of its own (<code>tw/…</code>), so it never edits the same files as another session; deleting the
        session removes the folder and keeps the branch.
      </p>
      {on && (
        <label class="field">
          <span>Base branch</span>
          <select name="base" value={shown} onChange={(e) => onChange(on, (e.target as HTMLSelectElement).value || null)}>
            {!current && <option value="">HEAD (detached)</option>}
            {branches.branches.map((b) => (
              <option key={b} value={b}>
                {b === current ? `${b} (current)` : b}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
