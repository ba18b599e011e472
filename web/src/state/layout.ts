// The phone layout (one pane at a time), as the stylesheet's breakpoint decides it.
import { Observable } from "./observable";

const query = window.matchMedia("(max-width: 760px)");

/** True at phone width: the home page is the session list itself. */
export const phoneLayout = new Observable<boolean>(query.matches);
query.addEventListener("change", () => phoneLayout.set(query.matches));

/**
 * Whether a panel pinned above the composer (checklist, goal, subagents, background tasks) starts
 * unfolded: not on a phone, where the transcript needs the height (each shows its one-line summary).
 */
export function pinnedPanelStartsOpen(): boolean {
  return !query.matches;
}
