import { describe, expect, it } from "vitest";
import {
  approvalCardShortcut,
  escapeStopsRun,
  type FocusPlace,
  globalShortcut,
  type KeyPress,
  neighbourSession,
  nextMode,
  promptShortcut,
  SHORTCUTS,
} from "./keys";

/** A key press: `mods` like "alt+shift"; `code` defaults to the key's own (KeyN for n). */
function press(key: string, mods = "", code?: string): KeyPress {
  const m = new Set(mods.split("+").filter(Boolean));
  return {
    key,
    code: code ?? (/^[a-z]$/i.test(key) ? `Key${key.toUpperCase()}` : key),
    altKey: m.has("alt"),
    ctrlKey: m.has("ctrl"),
    metaKey: m.has("meta"),
    shiftKey: m.has("shift"),
  };
}

const PLACES: FocusPlace[] = ["none", "empty-prompt", "prompt", "field"];
const where = (e: KeyPress) => Object.fromEntries(PLACES.map((p) => [p, globalShortcut(e, p)]));

describe("the app-wide shortcuts", () => {
  it("Alt+N opens a new session, from anywhere but another text field", () => {
    expect(where(press("n", "alt"))).toEqual({ none: "new-session", "empty-prompt": "new-session", prompt: "new-session", field: null });
  });

  it("Option+N on a Mac (a dead key) is a new session outside text fields only: it writes ñ in the prompt", () => {
    expect(where(press("Dead", "alt", "KeyN"))).toEqual({ none: "new-session", "empty-prompt": null, prompt: null, field: null });
  });

  it("Alt+↑/↓ go to the previous/next session, not from another text field or with other modifiers", () => {
    expect(where(press("ArrowUp", "alt"))).toEqual({ none: "previous-session", "empty-prompt": "previous-session", prompt: "previous-session", field: null });
    expect(globalShortcut(press("ArrowDown", "alt"), "prompt")).toBe("next-session");
    expect(globalShortcut(press("ArrowDown", "alt+shift"), "none")).toBeNull();
    expect(globalShortcut(press("ArrowDown", "ctrl+alt"), "none")).toBeNull();
    expect(globalShortcut(press("ArrowDown"), "none")).toBeNull();
  });

  it("/ and ? act only when no text field has the focus", () => {
    expect(where(press("/"))).toEqual({ none: "focus-prompt", "empty-prompt": null, prompt: null, field: null });
    expect(where(press("?", "shift"))).toEqual({ none: "show-shortcuts", "empty-prompt": null, prompt: null, field: null });
    expect(globalShortcut(press("/", "ctrl"), "none")).toBeNull();
  });

  it("no bare letter is a shortcut anywhere", () => {
    for (const key of "abcdefghijklmnopqrstuvwxyz") {
      for (const place of PLACES) expect(globalShortcut(press(key), place)).toBeNull();
    }
  });

  it("Ctrl+Enter and ⌘+Enter allow once outside text fields and from an empty prompt, never with text in it", () => {
    expect(where(press("Enter", "ctrl"))).toEqual({ none: "allow-once", "empty-prompt": "allow-once", prompt: null, field: null });
    expect(globalShortcut(press("Enter", "meta"), "none")).toBe("allow-once");
    expect(globalShortcut(press("Enter", "ctrl+shift"), "none")).toBeNull();
    expect(globalShortcut(press("Enter"), "none")).toBeNull();
  });

  it("Ctrl+K and ⌘K search from anywhere", () => {
    expect(where(press("k", "ctrl"))).toEqual({ none: "search", "empty-prompt": "search", prompt: "search", field: "search" });
    expect(globalShortcut(press("K", "meta"), "none")).toBe("search");
    expect(globalShortcut(press("k", "ctrl+shift"), "none")).toBeNull();
  });

  it("nothing while an input method composes", () => {
    expect(globalShortcut({ ...press("n", "alt"), isComposing: true }, "none")).toBeNull();
  });
});

describe("the prompt's keys", () => {
  it("Shift+Tab cycles the mode, Tab alone moves on", () => {
    expect(promptShortcut(press("Tab", "shift"), false)).toBe("cycle-mode");
    expect(promptShortcut(press("Tab", "shift"), true)).toBe("cycle-mode");
    expect(promptShortcut(press("Tab"), true)).toBeNull();
    expect(promptShortcut(press("Tab", "ctrl+shift"), true)).toBeNull();
  });

  it("Up edits the last queued message only from an empty prompt", () => {
    expect(promptShortcut(press("ArrowUp"), true)).toBe("edit-queued");
    expect(promptShortcut(press("ArrowUp"), false)).toBeNull();
    expect(promptShortcut(press("ArrowUp", "shift"), true)).toBeNull();
    expect(promptShortcut(press("ArrowUp", "alt"), true)).toBeNull();
  });

  it("the modes go ask → auto → full → ask", () => {
    expect([nextMode("ask"), nextMode("auto"), nextMode("full")]).toEqual(["auto", "full", "ask"]);
  });
});

describe("an approval card's keys", () => {
  it("on the focused card: Enter and A allow once, D and Esc deny", () => {
    expect(approvalCardShortcut(press("Enter"), true, false)).toBe("once");
    expect(approvalCardShortcut(press("a"), true, false)).toBe("once");
    expect(approvalCardShortcut(press("A", "shift"), true, false)).toBe("once");
    expect(approvalCardShortcut(press("d"), true, false)).toBe("deny");
    expect(approvalCardShortcut(press("Escape"), true, false)).toBe("deny");
  });

  it("on one of its buttons, Enter is the button's own; the letters still answer", () => {
    expect(approvalCardShortcut(press("Enter"), false, false)).toBeNull();
    expect(approvalCardShortcut(press("d"), false, false)).toBe("deny");
    expect(approvalCardShortcut(press("Enter", "ctrl"), false, false)).toBe("once");
  });

  it("never in its reason box, and never with Ctrl, Alt or ⌘ on a letter", () => {
    for (const k of ["a", "d", "Enter", "Escape"]) expect(approvalCardShortcut(press(k), true, true)).toBeNull();
    expect(approvalCardShortcut(press("Enter", "ctrl"), true, true)).toBeNull();
    expect(approvalCardShortcut(press("a", "ctrl"), true, false)).toBeNull();
    expect(approvalCardShortcut(press("d", "meta"), true, false)).toBeNull();
    expect(approvalCardShortcut(press("x"), true, false)).toBeNull();
  });
});

describe("Esc and the run", () => {
  const base = { activeRun: true, cardWaiting: false, approvalWaiting: false };

  it("stops a streaming run from anywhere but another text field", () => {
    expect(PLACES.map((place) => escapeStopsRun({ ...base, place }))).toEqual([true, true, true, false]);
  });

  it("while an approval waits, stops the run from the prompt only (as while it streams)", () => {
    const s = { ...base, cardWaiting: true, approvalWaiting: true };
    expect(PLACES.map((place) => escapeStopsRun({ ...s, place }))).toEqual([false, true, true, false]);
  });

  it("leaves a question or a plan its own Esc, and does nothing without a run", () => {
    const s = { ...base, cardWaiting: true };
    expect(PLACES.map((place) => escapeStopsRun({ ...s, place }))).toEqual([false, false, false, false]);
    expect(escapeStopsRun({ ...base, activeRun: false, place: "prompt" })).toBe(false);
  });
});

describe("the neighbouring session", () => {
  const ids = ["a", "b", "c"];

  it("goes through the sessions in the order shown, and stops at either end", () => {
    expect(neighbourSession(ids, "a", 1)).toBe("b");
    expect(neighbourSession(ids, "b", -1)).toBe("a");
    expect(neighbourSession(ids, "c", 1)).toBeNull();
    expect(neighbourSession(ids, "a", -1)).toBeNull();
  });

  it("with no session open, or one not listed (a subagent), starts at the first", () => {
    expect(neighbourSession(ids, null, 1)).toBe("a");
    expect(neighbourSession(ids, null, -1)).toBe("a");
    expect(neighbourSession(ids, "child", 1)).toBe("a");
    expect(neighbourSession([], null, 1)).toBeNull();
  });
});

describe("the shortcuts sheet", () => {
  it("lists every app-wide shortcut", () => {
    const keys = SHORTCUTS.flatMap((g) => g.lines.flatMap((l) => l.keys.map((k) => k.join("+"))));
    for (const k of ["Alt+N", "Alt+↑", "Alt+↓", "Ctrl+K", "/", "?", "Shift+Tab", "↑", "Ctrl+Enter", "⌘+Enter", "A", "D", "Esc"]) {
      expect(keys).toContain(k);
    }
  });
});
