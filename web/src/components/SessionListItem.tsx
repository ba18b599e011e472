import { useEffect, useRef, useState } from "preact/hooks";
import type { Session } from "../api/types";
import { useAction } from "../state/action";
import { confirmDeleteSession, deleteSession, forkSession, renameSession, sessionTitle } from "../state/projects";
import { linkClick, sessionPath } from "../state/router";
import { relativeTime } from "../util/format";
import { type MenuEntry, ActionMenu } from "./ActionMenu";
import { FormError } from "./FormError";
import { StatusBadge } from "./StatusBadge";

/**
 * One session in the list: its title, status, folder and last change, a link to it; and its "⋯"
 * menu: Rename (in place: Enter saves, Esc cancels), Fork (a copy of the conversation, opened)
 * and Delete (asked first).
 */
export function SessionListItem({ session: s, active, showWorkspace = true }: { session: Session; active: boolean; showWorkspace?: boolean }) {
  const path = sessionPath(s.id);
  const row = useRef<HTMLLIElement>(null);
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState("");
  const action = useAction((work: () => Promise<void>) => work());

  const input = useRef<HTMLInputElement>(null);
  /** The rename just closed: the focus goes back to the menu's button once it is back. */
  const backToMenu = useRef(false);
  useEffect(() => {
    if (renaming) {
      input.current?.focus();
      input.current?.select();
    } else if (backToMenu.current) {
      backToMenu.current = false;
      row.current?.querySelector<HTMLElement>(".action-menu-button")?.focus();
    }
  }, [renaming]);
  const stopRenaming = () => {
    backToMenu.current = true;
    setRenaming(false);
  };

  const save = (e: Event) => {
    e.preventDefault();
    const t = title.trim();
    if (!t || t === s.title) return stopRenaming();
    void action.run(async () => {
      await renameSession(s, t);
      stopRenaming();
    });
  };

  const remove = async () => {
    if (!(await confirmDeleteSession(s))) return;
    // Where the focus goes once the row is gone: the next session, else the one before.
    const li = row.current;
    const near = (li?.nextElementSibling ?? li?.previousElementSibling)?.querySelector<HTMLElement>("a.session-item");
    let gone = false;
    const ok = await action.run(async () => {
      gone = await deleteSession(s);
    });
    if (ok && gone) (near?.isConnected ? near : document.querySelector<HTMLElement>(".session-list-head .btn.primary"))?.focus();
  };

  const entries: MenuEntry[] = [
    {
      label: "Rename",
      onSelect: () => {
        setTitle(s.title);
        setRenaming(true);
      },
    },
    { label: "Fork", onSelect: () => void action.run(() => forkSession(s)) },
    { label: "Delete", danger: true, onSelect: () => void remove() },
  ];

  return (
    <li class="session-row" ref={row}>
      {renaming ? (
        <form class="session-rename" onSubmit={save}>
          <input
            aria-label={`New title for ${sessionTitle(s)}`}
            value={title}
            maxLength={200}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key !== "Escape") return;
              e.preventDefault();
              e.stopPropagation();
              stopRenaming();
            }}
            ref={input}
          />
          <span class="session-rename-actions">
            <button type="submit" class="btn small primary" disabled={action.busy}>
              Save
            </button>
            <button type="button" class="btn small ghost" onClick={stopRenaming}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <>
          <a
            class={`session-item${active ? " active" : ""}`}
            href={path}
            onClick={(e) => linkClick(e, path)}
            aria-current={active ? "page" : undefined}
            data-session-id={s.id}
          >
            <span class="session-item-top">
              <span class="session-title">{sessionTitle(s)}</span>
              <StatusBadge status={s.status} />
            </span>
            <span class="session-item-meta">
              {showWorkspace && (
                <span class="session-ws" title={s.workspace}>
                  {s.workspace}
                </span>
              )}
              <span class="session-time">{relativeTime(s.updated_at)}</span>
            </span>
          </a>
          <ActionMenu class="session-menu" label={`Actions for ${sessionTitle(s)}`} entries={entries} />
        </>
      )}
      <FormError error={action.error} small />
    </li>
  );
}
