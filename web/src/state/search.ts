// Search across every session: the search dialog's open state (opened from the session list, by
// Ctrl+K, or by `/search words` in the composer, prefilled), and the event a picked hit opens its
// session at.
import type { SearchHit } from "../api/types";
import { Observable } from "./observable";
import { navigate, sessionPath } from "./router";

/** The open search dialog and the words it starts with; `n` makes each opening a new dialog. */
export const searchDialog = new Observable<{ query: string; n: number } | null>(null);
let openings = 0;

export function openSearch(query = ""): void {
  searchDialog.set({ query, n: ++openings });
}

export function closeSearch(): void {
  searchDialog.set(null);
}

/** The event to bring into view once its session's transcript holds it (a hit just picked). */
export const jumpTarget = new Observable<{ session: string; seq: number } | null>(null);

/** Open the hit's session at its event (the transcript reads back to it and highlights it). */
export function openHit(hit: SearchHit): void {
  closeSearch();
  jumpTarget.set({ session: hit.session_id, seq: hit.seq });
  navigate(sessionPath(hit.session_id));
}

/** What a hit is, in a word or two. */
export const HIT_KIND: Record<string, string> = {
  user_message: "prompt",
  message_complete: "answer",
  tool_call: "tool call",
  tool_result: "tool output",
};
