import { useEffect, useId, useRef, useState } from "preact/hooks";
import "../projects.css";

/** One entry of an action menu. */
export interface MenuEntry {
  label: string;
  onSelect: () => void;
  /** It destroys something: shown in the danger colour. */
  danger?: boolean;
}

/**
 * A "⋯" button that opens a menu of actions (the WAI-ARIA menu button): Enter, Space or ↓ open
 * it on the first entry, ↑ on the last; ↑ ↓ Home End move, a letter jumps to the entry it starts;
 * Enter or Space picks; Esc closes it back onto the button, and so do Tab, a click elsewhere or
 * the focus leaving it. Picking closes the menu with the focus on the button, then acts.
 */
export function ActionMenu({ label, entries, class: cls }: { label: string; entries: MenuEntry[]; class?: string }) {
  const [open, setOpen] = useState(false);
  /** Which entry takes the focus when the menu opens: the first, or the last (↑). */
  const [start, setStart] = useState<"first" | "last">("first");
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  const items = () => Array.from(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []);
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const all = items();
    (start === "last" ? all[all.length - 1] : all[0])?.focus();
    const away = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  const openAt = (where: "first" | "last") => {
    setStart(where);
    setOpen(true);
  };

  const onMenuKey = (e: KeyboardEvent) => {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLElement);
    // A key the menu uses is its own: no shortcut of the page acts on it too.
    const to = (i: number) => {
      e.preventDefault();
      e.stopPropagation();
      all[(i + all.length) % all.length]?.focus();
    };
    switch (e.key) {
      case "ArrowDown":
        return to(at + 1);
      case "ArrowUp":
        return to(at - 1);
      case "Home":
        return to(0);
      case "End":
        return to(all.length - 1);
      case "Escape":
        // Kept here: Esc on the page would stop the session's run.
        e.preventDefault();
        e.stopPropagation();
        return close(true);
      case "Tab":
        return close(false);
      default:
        if (e.key.length === 1 && /\S/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
          const k = e.key.toLowerCase();
          const n = all.length;
          for (let i = 1; i <= n; i++) {
            const el = all[(at + i) % n];
            if (el.textContent?.trim().toLowerCase().startsWith(k)) return to((at + i) % n);
          }
        }
    }
  };

  return (
    <div
      class={`action-menu${cls ? ` ${cls}` : ""}`}
      ref={root}
      onFocusOut={(e) => {
        const to = e.relatedTarget as Node | null;
        if (open && to && !root.current?.contains(to)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        class="btn small ghost action-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        title={label}
        onClick={() => (open ? close(false) : openAt("first"))}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            openAt(e.key === "ArrowUp" ? "last" : "first");
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <ul class="action-menu-list" role="menu" id={menuId} aria-label={label} onKeyDown={onMenuKey}>
          {entries.map((m) => (
            <li key={m.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                class={`action-menu-item${m.danger ? " danger" : ""}`}
                onClick={() => {
                  close(true);
                  m.onSelect();
                }}
              >
                {m.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
