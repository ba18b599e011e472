// The web app's keyboard: the table of every shortcut (what the `?` sheet lists and what buttons
// name in `aria-keyshortcuts`), pure functions that tell which shortcut a key press is, and the
// requests an app-wide shortcut makes of the component that carries it out.
//
// The rules every shortcut keeps:
// - a bare key (a letter, `/`, `?`) never acts while a text field (input, textarea, select,
//   contenteditable) has the focus: it is typed there;
// - an app-wide one uses a modifier browsers leave to pages (Alt+N, Alt+↑/↓, Ctrl+K), or a bare
//   key outside text fields (`/`, `?`);
// - a key that answers an approval acts only on the card that has the focus, except Ctrl+Enter
//   (⌘+Enter), which allows the session's oldest waiting call once from anywhere but a text field
//   (an empty prompt counts as none: nothing typed is lost).
import { useEffect, useRef } from "preact/hooks";
import type { Mode } from "../api/types";
import { Observable } from "./observable";

/** What a handler needs of a key press (a `KeyboardEvent` is one). */
export interface KeyPress {
  key: string;
  code: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

/**
 * Where the focus is when a key is pressed: in no text field, in the session's prompt (empty or
 * with text in it), or in another text field (a rename, an editor, a select).
 */
export type FocusPlace = "none" | "empty-prompt" | "prompt" | "field";

/** The app-wide shortcuts, each carried out by whichever mounted component registered for it. */
export type GlobalShortcut =
  | "search"
  | "new-session"
  | "previous-session"
  | "next-session"
  | "focus-prompt"
  | "show-shortcuts"
  | "allow-once";

const noModifier = (e: KeyPress) => !e.altKey && !e.ctrlKey && !e.metaKey;
const outsideFields = (p: FocusPlace) => p === "none";
const notInOtherField = (p: FocusPlace) => p !== "field";

/** The app-wide shortcut a key press is, where the focus is `place`; null: none (the key is the page's). */
export function globalShortcut(e: KeyPress, place: FocusPlace): GlobalShortcut | null {
  if (e.isComposing) return null;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  // Ctrl+K (⌘K): the search, from anywhere.
  if (key === "k" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) return "search";
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
    // Alt+N, known by its key's place too (Option+N on a Mac gives a dead key); in the prompt only
    // when it types nothing, so that Option+N still writes ñ there.
    if (key === "n" || e.code === "KeyN") return outsideFields(place) || (notInOtherField(place) && key === "n") ? "new-session" : null;
    if (key === "ArrowUp" && notInOtherField(place)) return "previous-session";
    if (key === "ArrowDown" && notInOtherField(place)) return "next-session";
    return null;
  }
  if (key === "Enter" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
    return place === "none" || place === "empty-prompt" ? "allow-once" : null;
  }
  // Shift may be needed to type these (`?` always, `/` on some layouts).
  if (noModifier(e) && outsideFields(place)) {
    if (key === "/") return "focus-prompt";
    if (key === "?") return "show-shortcuts";
  }
  return null;
}

/** What a key does in the prompt, besides typing: cycle the permission mode, edit the last queued message. */
export type PromptShortcut = "cycle-mode" | "edit-queued";

/** The prompt's own shortcut a key press is (after its pickers had their turn); `empty`: nothing typed. */
export function promptShortcut(e: KeyPress, empty: boolean): PromptShortcut | null {
  if (e.isComposing || !noModifier(e)) return null;
  if (e.key === "Tab" && e.shiftKey) return "cycle-mode";
  if (e.key === "ArrowUp" && !e.shiftKey && empty) return "edit-queued";
  return null;
}

/**
 * What a key does on an approval card that has the focus: `onCard`, the card itself is focused
 * (not one of its buttons, whose Enter is their own); `inField`, the focus is in a text field of
 * the card (the reason box has its own keys).
 */
export function approvalCardShortcut(e: KeyPress, onCard: boolean, inField: boolean): "once" | "deny" | null {
  if (inField || e.isComposing) return null;
  if (e.key === "Enter") {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) return "once";
    return onCard && noModifier(e) && !e.shiftKey ? "once" : null;
  }
  if (!noModifier(e)) return null;
  if (e.key === "Escape") return "deny";
  const key = e.key.toLowerCase();
  if (key === "a") return "once";
  if (key === "d") return "deny";
  return null;
}

/**
 * What Esc does for the run (stop it, as the Cancel button does), or nothing. A run that streams or
 * runs tools stops from anywhere but another text field; a run waiting on a card (a question, a
 * plan, an approval) leaves Esc to the card, except that Esc in the prompt while an approval waits
 * stops the run as it does while the run streams.
 */
export function escapeStopsRun(s: {
  activeRun: boolean;
  cardWaiting: boolean;
  approvalWaiting: boolean;
  place: FocusPlace;
}): boolean {
  if (!s.activeRun || s.place === "field") return false;
  if (!s.cardWaiting) return true;
  return s.approvalWaiting && (s.place === "prompt" || s.place === "empty-prompt");
}

/** The permission modes in the order Shift+Tab goes through them. */
export const MODES: readonly Mode[] = ["ask", "auto", "full"];

/** The mode after `m` (ask → auto → full → ask). */
export function nextMode(m: Mode): Mode {
  const i = MODES.indexOf(m);
  return MODES[(i + 1) % MODES.length];
}

/**
 * The session `step` away from `current` in `ids` (the list's sessions in the order shown); none
 * past either end. With no session open, or one not listed (a subagent), the first one.
 */
export function neighbourSession(ids: readonly string[], current: string | null, step: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return ids[0];
  return ids[at + step] ?? null;
}

// ---- the table ----

/** One line of the shortcuts sheet: its keys (each alternative a list of keys pressed together). */
export interface ShortcutLine {
  keys: string[][];
  what: string;
}

export interface ShortcutGroup {
  title: string;
  lines: ShortcutLine[];
}

/** The `aria-keyshortcuts` (and title) values of the buttons a shortcut has. */
export const ARIA_KEYS = {
  newSession: "Alt+N",
  shortcuts: "?",
  prompt: "/",
  allowOnce: "A Control+Enter Meta+Enter",
  deny: "D Escape",
} as const;

/** Every shortcut, grouped by where it acts: what the `?` sheet shows. */
export const SHORTCUTS: readonly ShortcutGroup[] = [
  {
    title: "Anywhere",
    lines: [
      { keys: [["Alt", "N"]], what: "New session" },
      { keys: [["Alt", "↑"]], what: "Previous session in the list" },
      { keys: [["Alt", "↓"]], what: "Next session in the list" },
      { keys: [["Ctrl", "K"], ["⌘", "K"]], what: "Search every session" },
      { keys: [["/"]], what: "Go to the prompt (outside text fields)" },
      { keys: [["?"]], what: "Show these shortcuts (outside text fields)" },
      { keys: [["Esc"]], what: "Close the Artifacts drawer, or the Permissions panel from inside it; else stop the run that streams" },
    ],
  },
  {
    title: "In the prompt",
    lines: [
      { keys: [["Enter"]], what: "Send (while an approval waits: deny it and tell the agent the words)" },
      { keys: [["Shift", "Enter"]], what: "New line" },
      { keys: [["Shift", "Tab"]], what: "Next permission mode: ask → auto → full" },
      { keys: [["↑"]], what: "Edit the last queued message (empty prompt)" },
      { keys: [["Esc"]], what: "Stop the run, while it streams or an approval waits (asks first when messages are queued)" },
    ],
  },
  {
    title: "Approvals",
    lines: [
      { keys: [["Ctrl", "Enter"], ["⌘", "Enter"]], what: "Allow the waiting call once (outside text fields, or from an empty prompt)" },
      { keys: [["Enter"], ["A"]], what: "Allow once, on a card that has the focus" },
      { keys: [["D"], ["Esc"]], what: "Deny, on a card that has the focus" },
      { keys: [["Ctrl", "Enter"]], what: "In “tell the agent”: deny and send the words (Esc cancels)" },
    ],
  },
  {
    title: "Plans and questions",
    lines: [
      { keys: [["Esc"]], what: "On a plan: skip it, with Undo; while revisions are compared, close the comparison only" },
      { keys: [["1–9"]], what: "On a question: choose an option" },
      { keys: [["Enter"]], what: "On a question: next question, or send the answers" },
      { keys: [["Esc"]], what: "On a question: skip this question" },
    ],
  },
];

// ---- requests and handlers ----

/** The `?` sheet is open. */
export const shortcutsSheet = new Observable<boolean>(false);

/** Shift+Tab in a session's prompt: its mode menu moves to the next mode (and clears the request). */
export const modeCycleRequest = new Observable<{ session: string; n: number } | null>(null);
let modeCycles = 0;

export function requestModeCycle(session: string): void {
  modeCycleRequest.set({ session, n: ++modeCycles });
}

/**
 * Up in an empty prompt: the queued message `id` opens in its editor, which gives the focus back
 * to `returnTo` when it closes.
 */
export const queueEditRequest = new Observable<{ id: string; returnTo: HTMLElement | null } | null>(null);

/** The prompt of `session` takes the focus once it shows (a session switched to from a prompt). */
export const promptFocusRequest = new Observable<string | null>(null);

/**
 * What a handler can be registered for: an app-wide shortcut, or Esc, which first closes an open
 * panel ("close") and else stops the run ("stop-run").
 */
export type HandlerName = GlobalShortcut | "close" | "stop-run";

type Handler = (e: KeyboardEvent) => boolean;
const handlers = new Map<HandlerName, Handler[]>();

/** Carry out `name` with the newest registered handler that takes it; true: one did. */
export function runShortcut(name: HandlerName, e: KeyboardEvent): boolean {
  const list = handlers.get(name) ?? [];
  for (let i = list.length - 1; i >= 0; i--) if (list[i](e)) return true;
  return false;
}

/** While the component is mounted, `handler` carries out `name` (returning false leaves it to an older one). */
export function useShortcut(name: HandlerName, handler: Handler): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const h: Handler = (e) => ref.current(e);
    const list = handlers.get(name) ?? [];
    handlers.set(name, [...list, h]);
    return () => handlers.set(name, (handlers.get(name) ?? []).filter((x) => x !== h));
  }, [name]);
}

/** The pending approval cards, by approval id: a key answers through the card, as its buttons do. */
const cards = new Map<string, (d: "once" | "deny") => void>();

export function useApprovalKeys(id: string, pending: boolean, decide: (d: "once" | "deny") => void): void {
  const ref = useRef(decide);
  ref.current = decide;
  useEffect(() => {
    if (!pending) return;
    const h = (d: "once" | "deny") => ref.current(d);
    cards.set(id, h);
    return () => {
      if (cards.get(id) === h) cards.delete(id);
    };
  }, [id, pending]);
}

/** Answer approval `id` through its card, if one shows; false: none does. */
export function answerThroughCard(id: string, d: "once" | "deny"): boolean {
  const card = cards.get(id);
  if (!card) return false;
  card(d);
  return true;
}

/**
 * The one listener for the app-wide keys (installed by the shell): a key a component or an open
 * dialog already used is left alone.
 */
export function onGlobalKey(e: KeyboardEvent): void {
  if (e.defaultPrevented || document.querySelector("dialog[open]")) return;
  const place = focusPlace(e.target instanceof Element ? e.target : null);
  if (e.key === "Escape") {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.isComposing) return;
    if (runShortcut("close", e) || runShortcut("stop-run", e)) e.preventDefault();
    return;
  }
  const name = globalShortcut(e, place);
  if (name && runShortcut(name, e)) e.preventDefault();
}

/** Where the focus is, for a key pressed on `el`. */
export function focusPlace(el: Element | null): FocusPlace {
  if (!el) return "none";
  if (el.matches('.composer textarea[name="prompt"]')) return (el as HTMLTextAreaElement).value === "" ? "empty-prompt" : "prompt";
  if (el.matches("textarea, select, [contenteditable]:not([contenteditable='false'])")) return "field";
  if (el.matches("input")) {
    const type = (el as HTMLInputElement).type;
    return ["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"].includes(type) ? "none" : "field";
  }
  return "none";
}
