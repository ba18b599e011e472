// What the terminal panel says of a terminal's state (kept out of the app's first load: only the
// panel, loaded when it opens, reads it).
import type { TermStatus } from "../state/terminals";

/** A terminal's status in a few words (its tab's title, the line under its screen). */
export function statusText(s: TermStatus): string {
  switch (s.kind) {
    case "waiting":
    case "opening":
      return "Starting…";
    case "open":
      return "Running";
    case "reconnecting":
      return "Reconnecting…";
    case "exited":
      return s.code === null ? "The shell ended." : `The shell ended (exit code ${s.code}).`;
    case "closed":
      return CLOSED[s.reason] ?? `Closed (${s.reason}).`;
    case "failed":
      return `Could not open: ${s.message}`;
  }
}

const CLOSED: Record<string, string> = {
  closed: "Closed.",
  idle: "Closed after being idle too long.",
  detached: "Closed: no page was attached to it for 10 s.",
  session_deleted: "Closed: the session was deleted.",
  signed_out: "Closed: signed out.",
  expired: "It ended while this page was away.",
};

/** The shell still takes keys. */
export function isLive(s: TermStatus): boolean {
  return s.kind === "open";
}
