import { useId, useState } from "preact/hooks";
import type { DirListing } from "../api/types";
import { type KnownFolder, trimSlashes, workspaceWarning } from "../util/workspaces";
import { FolderPicker } from "./FolderPicker";
import { VisibleText } from "./VisibleText";
import "../workspaces.css";

/**
 * The new-session form's workspace folder: typed, browsed (`FolderPicker`) or picked from the
 * recent workspaces, with a warning when it is a system folder or the home folder itself.
 * `home`: the server's home-folder listing (its recent workspaces), null until read or when it
 * could not be read (then the field is typed only).
 */
export function WorkspaceField({
  value,
  onChange,
  placeholder,
  home,
  inputRef,
}: {
  value: string;
  onChange: (path: string) => void;
  placeholder: string;
  home: DirListing | null;
  inputRef: { current: HTMLInputElement | null };
}) {
  const uid = useId();
  const [browsing, setBrowsing] = useState(false);
  const known: KnownFolder[] = home ? [...home.recent, { path: home.path, warning: home.warning }] : [];
  const warning = workspaceWarning(value, known, home && !home.parent ? home.path : null);
  const recent = home?.recent ?? [];

  const choose = (path: string) => {
    onChange(path);
    setBrowsing(false);
    inputRef.current?.focus();
  };

  return (
    <div class="field workspace-field">
      <label class="field-caption" for={`${uid}-ws`}>
        Workspace folder
      </label>
      <div class="workspace-input">
        <input
          id={`${uid}-ws`}
          ref={inputRef}
          name="workspace"
          value={value}
          placeholder={placeholder}
          spellcheck={false}
          autocomplete="off"
          aria-describedby={warning ? `${uid}-warn` : undefined}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="btn small workspace-browse" aria-expanded={browsing} onClick={() => setBrowsing(!browsing)}>
          Browse…
        </button>
      </div>
      {warning && (
        <p class="workspace-warning small" id={`${uid}-warn`} role="alert">
          <span aria-hidden="true">⚠ </span>
          <VisibleText text={warning} />
        </p>
      )}
      {browsing && (
        <FolderPicker
          start={value}
          onChoose={choose}
          onClose={() => {
            setBrowsing(false);
            inputRef.current?.focus();
          }}
        />
      )}
      {recent.length > 0 && (
        <div class="recent-workspaces">
          <span class="muted small" id={`${uid}-recent`}>
            Recent
          </span>
          <ul aria-labelledby={`${uid}-recent`}>
            {recent.map((r) => (
              <li key={r.path}>
                <button
                  type="button"
                  class="linklike small recent-workspace"
                  aria-pressed={trimSlashes(r.path) === trimSlashes(value)}
                  title={r.warning ?? undefined}
                  onClick={() => choose(r.path)}
                >
                  <VisibleText text={r.path} />
                  {r.warning && (
                    <span role="img" aria-label="(warned about)">
                      {" "}
                      ⚠
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
