// Asks the transcript to bring one of its items into view and focus it: the transcript is
// windowed, so an item far from the viewport is not in the DOM to scroll to.
import { Observable } from "./observable";

/**
 * The item (by key) to bring into view; a new object each time, so asking twice works. `flash`:
 * highlight the row briefly (a search hit opened there).
 */
export const revealRequest = new Observable<{ key: string; flash: boolean } | null>(null);

export function revealItem(key: string, flash = false): void {
  revealRequest.set({ key, flash });
}
