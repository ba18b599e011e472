// What Settings → Skills and Settings → Hooks show, worked out from the server's lists: a
// left-out folder split into its path and its reason, hooks grouped by the point of a run they
// run at (in the order a run meets them), each hook's file and where that file comes from.
import type { HookFileInfo, HookInfo } from "../api/types";

/** A line of `skipped` (`PATH: why`): the path apart when the line starts with one. */
export interface SkippedLine {
  path: string | null;
  why: string;
}

/**
 * The server words a left-out skill folder as `{folder}: {reason}`, and a reason may hold a `: `
 * of its own (`SKILL.md cannot be read: …`): the path ends at the first `: `. A line that does
 * not start with an absolute path is all reason.
 */
export function splitSkipped(line: string): SkippedLine {
  const absolute = line.startsWith("/") || /^[A-Za-z]:[\\/]/.test(line);
  const cut = line.indexOf(": ");
  if (!absolute || cut <= 0) return { path: null, why: line };
  return { path: line.slice(0, cut), why: line.slice(cut + 2) };
}

/** The points of a run a hook may run at, in the order a run meets them, with what each means. */
export const HOOK_EVENTS: readonly { event: string; when: string; tools: boolean }[] = [
  { event: "SessionStart", when: "At a session's first prompt: what it prints is context for the model.", tools: false },
  { event: "UserPromptSubmit", when: "When a prompt is sent, before the model sees it.", tools: false },
  { event: "PreToolUse", when: "Before a tool call: it may deny the call or have it ask you, never allow more.", tools: true },
  { event: "PostToolUse", when: "After a tool call, with its result.", tools: true },
  { event: "PreCompact", when: "Before older turns are summarised (nothing it says stops it).", tools: false },
  { event: "Stop", when: "When the run has answered: it may ask for one more turn.", tools: false },
];

export interface HookGroup {
  event: string;
  /** What the event means (empty for an event this page does not know). */
  when: string;
  /** The event is a tool call's: a hook runs for the tools its matcher names. */
  tools: boolean;
  hooks: HookInfo[];
}

/**
 * The hooks by event: the known events in the order a run meets them, any other after them by
 * name; the hooks of one event in the order the server lists them. Events without hooks are left out.
 */
export function groupHooks(hooks: readonly HookInfo[]): HookGroup[] {
  const by = new Map<string, HookInfo[]>();
  for (const h of hooks) {
    const list = by.get(h.event);
    if (list) list.push(h);
    else by.set(h.event, [h]);
  }
  const known = HOOK_EVENTS.filter((e) => by.has(e.event)).map((e) => ({ ...e, hooks: by.get(e.event) ?? [] }));
  const names = new Set(HOOK_EVENTS.map((e) => e.event));
  const other = [...by.keys()]
    .filter((e) => !names.has(e))
    .sort()
    .map((event) => ({ event, when: "", tools: false, hooks: by.get(event) ?? [] }));
  return [...known, ...other];
}

/** Which tools a hook of a tool event runs for, in words: every tool when the matcher is empty or `*`. */
export function matcherText(matcher: string | null | undefined): string | null {
  const m = matcher?.trim() ?? "";
  return m === "" || m === "*" ? null : m;
}

/** Where a hooks file comes from (`user`, `workspace`), by its path; null for a file the list does not name. */
export function fileSource(files: readonly HookFileInfo[], path: string): string | null {
  return files.find((f) => f.path === path)?.source ?? null;
}
