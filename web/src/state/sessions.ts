// Session list (polled) and one live transcript per opened session.
import { api } from "../api/client";
import { connection } from "../api/socket";
import type { Session } from "../api/types";
import { notifyAttention } from "./attention";
import { Observable } from "./observable";
import { Transcript } from "./transcript";

export const sessions = new Observable<Session[] | null>(null);
export const sessionsError = new Observable<string | null>(null);

let pollTimer: ReturnType<typeof setTimeout> | undefined;
let polling = false;

export async function refreshSessions(): Promise<void> {
  try {
    const page = await api.listSessions();
    const list = Array.isArray(page) ? (page as Session[]) : page.data;
    sessions.set(sortSessions(list));
    sessionsError.set(null);
  } catch (e) {
    sessionsError.set(e instanceof Error ? e.message : String(e));
  }
}

export function sortSessions(list: Session[]): Session[] {
  return [...list].sort((a, b) => b.updated_at - a.updated_at || (a.id < b.id ? 1 : -1));
}

export function upsertSession(s: Session): void {
  const cur = sessions.get() ?? [];
  const i = cur.findIndex((x) => x.id === s.id);
  const next = i >= 0 ? cur.map((x) => (x.id === s.id ? s : x)) : [s, ...cur];
  sessions.set(sortSessions(next));
}

export function removeSession(id: string): void {
  sessions.set((sessions.get() ?? []).filter((s) => s.id !== id));
  const t = transcripts.get(id);
  if (t) {
    t.release();
    transcripts.delete(id);
  }
}

let offReopened: (() => void) | null = null;

export function startSessionPolling(): void {
  if (polling) return;
  polling = true;
  // Back from an outage: the list (and its error line) is refreshed at once, not at the next tick.
  offReopened ??= connection.reopened.subscribe(() => void refreshSessions());
  const tick = async () => {
    if (!polling) return;
    if (document.visibilityState === "visible") await refreshSessions();
    pollTimer = setTimeout(tick, 4000);
  };
  void tick();
}

export function stopSessionPolling(): void {
  polling = false;
  offReopened?.();
  offReopened = null;
  clearTimeout(pollTimer);
}

interface Live {
  transcript: Transcript;
  refs: number;
  unwatch: (() => void) | null;
  release: () => void;
}

const transcripts = new Map<string, Live & { release: () => void }>();

/** Get (and start watching) the transcript of a session. Call the returned release when done. */
export function openTranscript(id: string): { transcript: Transcript; release: () => void } {
  let live = transcripts.get(id);
  if (!live) {
    const t = new Transcript(id);
    const l: Live = {
      transcript: t,
      refs: 0,
      unwatch: null,
      release: () => {
        l.unwatch?.();
        l.unwatch = null;
      },
    };
    t.onAttention = (ev) => notifyAttention(id, ev);
    t.onGap = (after) => void fillGap(t, after);
    live = l;
    transcripts.set(id, l);
  }
  const l = live;
  l.refs++;
  if (!l.unwatch) {
    l.unwatch = connection.watch(id, {
      lastSeq: () => l.transcript.lastSeq,
      onEvents: (events) => l.transcript.push(events),
    });
  }
  let released = false;
  return {
    transcript: l.transcript,
    release: () => {
      if (released) return;
      released = true;
      l.refs--;
      if (l.refs <= 0) {
        // Keep the transcript (cheap to resume) but stop the live subscription.
        l.unwatch?.();
        l.unwatch = null;
      }
    },
  };
}

const filling = new Set<Transcript>();

async function fillGap(t: Transcript, after: number): Promise<void> {
  if (filling.has(t)) return;
  filling.add(t);
  try {
    let cursor = after;
    for (let i = 0; i < 50; i++) {
      const page = await api.events(t.sessionId, cursor);
      if (page.data.length === 0) break;
      t.push(page.data);
      cursor = page.data[page.data.length - 1].seq;
      if (page.next_cursor === null || page.data.length < 1000) break;
    }
    t.flush();
  } catch {
    // fall through: accept the hole rather than stall the view
  }
  filling.delete(t);
  if (t.hasQueued()) t.acceptGap();
}
