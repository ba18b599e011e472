// The pager: reads a session's events over REST, page by page, and hands them to its transcript
// (which applies them through the reducer). A session opens at its end: the newest page first
// (`events?before=`), asked for early for the session in the address bar; older pages as the
// user scrolls up, or as far back as a search hit; and the events of a hole the WebSocket left.
import { ApiError, api, errorText } from "../api/client";
import type { EventPage } from "../api/types";
import type { Transcript } from "./transcript";

/** Events per page: the newest page when a session opens, then each older page on scroll-up. */
export const EVENT_PAGE = 300;
/** `before` past any seq: the newest page, however far the session has gone by now. */
const END = Number.MAX_SAFE_INTEGER;
/** A page asked for early is used only this fresh (ms); the socket catches up from its last seq. */
const EARLY_FOR = 10_000;
/** Largest page asked for at once when reading back to a given event. */
const MAX_PAGE = 5000;

/** The newest page of the session in the address bar, asked for while the sign-in is checked. */
let early: { id: string; at: number; page: Promise<EventPage> } | null = null;

export function prefetchNewest(id: string): void {
  const page = api.eventsBefore(id, END, EVENT_PAGE);
  page.catch(() => undefined); // used (or dropped) by readNewest
  early = { id, at: Date.now(), page };
}

function newestPage(id: string): Promise<EventPage> {
  const e = early;
  early = null;
  const ask = () => api.eventsBefore(id, END, EVENT_PAGE);
  if (e && e.id === id && Date.now() - e.at < EARLY_FOR) return e.page.catch(ask);
  return ask();
}

/**
 * Read the newest page and apply it, trying again with backoff while the transcript is `wanted`
 * (a failure shows as its `loadError`). Resolves true once applied; false when given up: no longer
 * wanted, no longer the `current` transcript of its session, or an answer that trying again would
 * not change (signed out, no such session).
 */
export async function readNewest(t: Transcript, still: { wanted: () => boolean; current: () => boolean }): Promise<boolean> {
  let wait = 500;
  while (still.wanted()) {
    try {
      const page = await newestPage(t.sessionId);
      if (!still.current()) return false;
      t.loadNewest(page);
      return true;
    } catch (e) {
      t.loadFailed(errorText(e));
      if (e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404)) return false;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 10_000);
    }
  }
  return false;
}

/** Read the page of events before the oldest one held (the user scrolled up to it). */
export async function loadOlder(t: Transcript): Promise<void> {
  if (!t.beginOlder()) return;
  try {
    t.prepend(await api.eventsBefore(t.sessionId, t.olderCursor, EVENT_PAGE));
  } catch (e) {
    t.olderFailed(errorText(e));
  }
}

/**
 * Read older pages until the event `seq` is held (a search hit opened there): each page reaches
 * back as far as the event (at most MAX_PAGE events at a time). A failure shows as `olderError`.
 */
export async function loadThrough(t: Transcript, seq: number): Promise<void> {
  while (t.firstSeq > seq && t.hasOlder) {
    if (!t.beginOlder()) return;
    const limit = Math.min(MAX_PAGE, Math.max(EVENT_PAGE, t.firstSeq - seq + 20));
    try {
      t.prepend(await api.eventsBefore(t.sessionId, t.olderCursor, limit));
    } catch (e) {
      t.olderFailed(errorText(e));
      return;
    }
  }
}

const filling = new Set<Transcript>();

/** Read the events after `after` that the socket skipped (a hole in the seqs), then apply what is queued. */
export async function fillGap(t: Transcript, after: number): Promise<void> {
  if (filling.has(t)) return;
  filling.add(t);
  try {
    let cursor = after;
    for (let i = 0; i < 50; i++) {
      const page = await api.events(t.sessionId, cursor);
      if (page.data.length === 0) break;
      t.push(page.data);
      cursor = page.data[page.data.length - 1].seq;
      if (!page.has_more) break;
    }
    t.flush();
  } catch {
    // fall through: accept the hole rather than stall the view
  }
  filling.delete(t);
  if (t.hasQueued()) t.acceptGap();
}
