import { useEffect, useRef } from "preact/hooks";
import {
  focusPlace,
  neighbourSession,
  onGlobalKey,
  promptFocusRequest,
  SHORTCUTS,
  type ShortcutLine,
  shortcutsSheet,
  useShortcut,
} from "../state/keys";
import { phoneLayout } from "../state/layout";
import { useObservable } from "../state/observable";
import { newSessionForm } from "../state/projects";
import { navigate, route, sessionPath } from "../state/router";
import { openSearch, searchDialog } from "../state/search";
import "../keys.css";

/**
 * The app-wide keys (one listener; what each key is lives in state/keys) and the `?` sheet that
 * lists them all. The shortcuts carried out here are the shell's: search, a new session, the
 * previous or next session and the sheet; the session view registers its own (the prompt, Esc).
 */
export function Shortcuts() {
  const open = useObservable(shortcutsSheet);

  useEffect(() => {
    document.addEventListener("keydown", onGlobalKey);
    return () => document.removeEventListener("keydown", onGlobalKey);
  }, []);

  useShortcut("search", () => {
    if (searchDialog.get()) return false;
    openSearch();
    return true;
  });
  useShortcut("show-shortcuts", () => {
    shortcutsSheet.set(true);
    return true;
  });
  useShortcut("new-session", () => {
    // At phone width the form is on the list page.
    if (phoneLayout.get() && route.get().name !== "home") navigate("/");
    // Open already: its first field takes the focus back (a new form takes it itself).
    if (newSessionForm.get()) document.querySelector<HTMLElement>('form.new-session input[name="workspace"]')?.focus();
    else newSessionForm.set(true);
    return true;
  });
  const go = (step: 1 | -1) => (e: KeyboardEvent) => {
    const r = route.get();
    const current = r.name === "session" ? r.id : null;
    // The list as it shows (by project; archived ones while unfolded), also where it is hidden (a
    // session's page at phone width).
    const ids = [...document.querySelectorAll<HTMLElement>(".sidebar a.session-item[data-session-id]")].map((a) => a.dataset.sessionId ?? "");
    const id = neighbourSession(ids, current, step);
    if (!id || id === current) return false;
    // From the prompt to the next session's prompt.
    const place = focusPlace(e.target instanceof Element ? e.target : null);
    if (place === "prompt" || place === "empty-prompt") promptFocusRequest.set(id);
    navigate(sessionPath(id));
    return true;
  };
  useShortcut("previous-session", go(-1));
  useShortcut("next-session", go(1));

  return open ? <ShortcutsSheet /> : null;
}

/** The keys of one line: alternatives joined by "or", the keys of each pressed together. */
function Keys({ line }: { line: ShortcutLine }) {
  return (
    <>
      {line.keys.map((combo, i) => (
        <span key={i} class="shortcut-combo">
          {i > 0 && <span class="muted"> or </span>}
          {combo.map((k, j) => (
            <span key={j}>
              {j > 0 && "+"}
              <kbd>{k}</kbd>
            </span>
          ))}
        </span>
      ))}
    </>
  );
}

/** Every shortcut, by where it acts: a modal dialog (Esc or Close closes it, the focus goes back). */
function ShortcutsSheet() {
  const ref = useRef<HTMLDialogElement>(null);
  const back = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      const el = back.current;
      if (el instanceof HTMLElement && el.isConnected) el.focus({ preventScroll: true });
    };
  }, []);
  const close = () => shortcutsSheet.set(false);
  return (
    <dialog
      ref={ref}
      class="shortcuts-sheet"
      aria-labelledby="shortcuts-title"
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
    >
      <header class="shortcuts-head">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <button type="button" class="btn small ghost" onClick={close}>
          Close
        </button>
      </header>
      <p class="muted small">A letter, / or ? is never a shortcut while you type in a field.</p>
      {SHORTCUTS.map((g, i) => (
        <section key={g.title} aria-labelledby={`shortcuts-group-${i}`}>
          <h3 id={`shortcuts-group-${i}`}>{g.title}</h3>
          <dl class="shortcut-list">
            {g.lines.map((l) => (
              <div key={l.what} class="shortcut-line">
                <dt>
                  <Keys line={l} />
                </dt>
                <dd>{l.what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </dialog>
  );
}
