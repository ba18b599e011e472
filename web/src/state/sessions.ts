// The session list, kept live by the WebSocket (`subscribe_sessions`: every change to a session's
// status, title, mode or archive state arrives as it happens), and one live transcript per opened
// session. The list is read over REST at start, after each reconnect and when the server says
// changes were missed; there is no timer.
import { api } from "../api/client";
import { connection, type SessionListFrame } from "../api/socket";
import type { Session } from "../api/types";
import { notifyAttention } from "./attention";
import { Observable } from "./observable";
import { Transcript } from "./transcript";

export const sessions = new Observable<Session[] | null>(null);
export const sessionsError = new Observable<string | null>(null);

/** Ids changed by live frames while a REST read was on its way: its older copy must not win. */
let changedDuringRead: Set<string> | null = null;
let reads = 0;

export async function refreshSessions(): Promise<void> {
  const mine = ++reads;
  const changed = new Set<string>();
  changedDuringRead = changed;
  try {
    const page = await api.listSessions();
    if (mine !== reads) return; // a newer read is on its way
    const list = Array.isArray(page) ? (page as Session[]) : page.data;
    const cur = new Map((sessions.get() ?? []).map((s) => [s.id, s]));
    const merged = list.map((s) => (changed.has(s.id) ? cur.get(s.id) : s)).filter((s): s is Session => !!s);
    for (const id of changed) {
      const s = cur.get(id);
      if (s && !merged.some((x) => x.id === id)) merged.push(s);
    }
    sessions.set(sortSessions(merged));
    sessionsError.set(null);
  } catch (e) {
    if (mine === reads) sessionsError.set(e instanceof Error ? e.message : String(e));
  } finally {
    if (mine === reads) changedDuringRead = null;
  }
}

export function sortSessions(list: Session[]): Session[] {
  return [...list].sort((a, b) => b.updated_at - a.updated_at || (a.id < b.id ? 1 : -1));
}

export function upsertSession(s: Session): void {
  const cur = sessions.get() ?? [];
  const i = cur.findIndex((x) => x.id === s.id);
  // An answer read earlier than the copy we have (same session, older update) changes nothing.
  if (i >= 0 && cur[i].updated_at > s.updated_at) return;
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

function onListFrame(f: SessionListFrame): void {
  switch (f.type) {
    case "session_updated": {
      changedDuringRead?.add(f.session);
      // The server sends the session as it is now: it replaces ours whatever its updated_at.
      const cur = sessions.get() ?? [];
      const next = cur.some((x) => x.id === f.session)
        ? cur.map((x) => (x.id === f.session ? f.data : x))
        : [f.data, ...cur];
      sessions.set(sortSessions(next));
      break;
    }
    case "session_deleted":
      changedDuringRead?.add(f.session);
      removeSession(f.session);
      break;
    case "sessions_resync":
      void refreshSessions();
      break;
  }
}

let stopWatching: (() => void) | null = null;

/** Start following the session list (after sign-in). */
export function startSessionList(): void {
  if (stopWatching) return;
  stopWatching = connection.watchSessions({ onOpen: () => void refreshSessions(), onFrame: onListFrame });
  // The list shows at once, even before the socket is up (or when it cannot open).
  void refreshSessions();
}

export function stopSessionList(): void {
  stopWatching?.();
  stopWatching = null;
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
      if (!page.has_more) break;
    }
    t.flush();
  } catch {
    // fall through: accept the hole rather than stall the view
  }
  filling.delete(t);
  if (t.hasQueued()) t.acceptGap();
}
