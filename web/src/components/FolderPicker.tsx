import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { DirListing } from "../api/types";
import { VisibleText } from "./VisibleText";

/**
 * Browse the server's folders under its home folder for a workspace (`GET /api/fs/dirs`): open a
 * folder, go up to its parent, show hidden folders, choose the folder shown (`onChoose`). Opens at
 * `start` when the server lists it (else the home folder). After each move the folder's path has
 * the focus (read out where the keyboard now is).
 */
export function FolderPicker({ start, onChoose, onClose }: { start: string; onChoose: (path: string) => void; onClose: () => void }) {
  const headId = useId();
  const [listing, setListing] = useState<DirListing | null>(null);
  const [hidden, setHidden] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const moved = useRef(false);
  const head = useRef<HTMLElement>(null);

  /** List `path` (absent: the home folder); `fallBack`: the home folder when it cannot be listed. */
  const open = async (path: string | undefined, showHidden: boolean, { fallBack = false, focus = true } = {}) => {
    setLoading(true);
    setError(null);
    try {
      setListing(await api.dirs(path, showHidden));
      moved.current = focus;
    } catch (e) {
      if (fallBack) {
        await open(undefined, showHidden, { focus });
        return;
      }
      setError(`Could not list ${path ?? "the home folder"}: ${errorText(e)}`);
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    // A typed folder outside the home folder (or none) opens the home folder instead.
    const from = start.trim().startsWith("/") ? start.trim() : undefined;
    void open(from, false, { fallBack: from !== undefined });
  }, []);

  useLayoutEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    head.current?.focus();
  });

  return (
    <div class="folder-picker" role="group" aria-labelledby={headId} aria-busy={loading}>
      <div class="folder-picker-head">
        <button
          type="button"
          class="btn small"
          disabled={!listing?.parent}
          onClick={() => listing?.parent && void open(listing.parent, hidden)}
          aria-label="Up to the parent folder"
        >
          ↑ Up
        </button>
        <code id={headId} class="folder-picker-path" tabIndex={-1} ref={head}>
          {listing ? <VisibleText text={listing.path} /> : "Loading…"}
        </code>
      </div>
      <label class="folder-picker-hidden small">
        <input
          type="checkbox"
          checked={hidden}
          onChange={(e) => {
            const on = (e.target as HTMLInputElement).checked;
            setHidden(on);
            // The focus stays on the box.
            void open(listing?.path, on, { focus: false });
          }}
        />{" "}
        Show hidden folders
      </label>
      {listing && listing.dirs.length > 0 && (
        <ul class="folder-list" aria-label={`Folders in ${listing.path}`}>
          {listing.dirs.map((d) => (
            <li key={d.path}>
              <button type="button" class="linklike folder-open" onClick={() => void open(d.path, hidden)}>
                <span aria-hidden="true">📁 </span>
                <VisibleText text={d.name} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {listing && listing.dirs.length === 0 && <p class="muted small">No folders here.</p>}
      {listing?.truncated && <p class="muted small">Only the first 1,000 folders by name are shown.</p>}
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      <div class="row folder-picker-actions">
        <button type="button" class="btn small primary" disabled={!listing} onClick={() => listing && onChoose(listing.path)}>
          Use this folder
        </button>
        <button type="button" class="btn small" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
