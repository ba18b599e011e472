// The session list, kept live by the WebSocket (`subscribe_sessions`: every change to a session's
// status, title, mode or archive state arrives as it happens), and one live transcript per opened
// session. The list is read over REST at start, after each reconnect and when the server says
// changes were missed; there is no timer.
import { api } from "../api/client";
import { type ConnState, connection } from "../api/socket";
import type { ReviewComment, Session, SessionListFrame } from "../api/types";
import { notifyAttention } from "./attention";
import { Observable } from "./observable";
import { EVENT_PAGE, fillGap, readNewest } from "./pager";
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
    const list = page.data;
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

/**
 * The sessions the user started, as the list shows them: subagents (`parent_id`) belong to their
 * root session, which reads as waiting when one of them (at any depth the list knows) waits for
 * the user, since they ask through it.
 */
export function topLevel(list: readonly Session[]): Session[] {
  const byId = new Map(list.map((s) => [s.id, s]));
  const asking = new Set<string>();
  for (const s of list) {
    if (!s.parent_id || s.status !== "waiting") continue;
    let up: Session | undefined = s;
    // Subagents nest only a few levels deep; the bound guards against a loop in bad data.
    for (let i = 0; up?.parent_id && i < 8; i++) up = byId.get(up.parent_id);
    if (up && !up.parent_id) asking.add(up.id);
  }
  return list
    .filter((s) => !s.parent_id)
    .map((s) => (asking.has(s.id) && s.status !== "waiting" ? { ...s, status: "waiting" } : s));
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

/**
 * Start following the session list (after sign-in). It is read when the socket opens, after the
 * subscription (no change falls between the two), not also before: one read while the app opens,
 * not two. A socket that cannot open does not keep the list from showing: it is read then.
 */
export function startSessionList(): void {
  if (stopWatching) return;
  let asked = false;
  const read = () => {
    asked = true;
    void refreshSessions();
  };
  const offList = connection.watchSessions({ onOpen: read, onFrame: onListFrame });
  const unreachable = (s: ConnState) => {
    if (!asked && (s === "reconnecting" || s === "offline")) read();
  };
  unreachable(connection.state.get());
  const offState = connection.state.subscribe(unreachable);
  stopWatching = () => {
    offList();
    offState();
  };
}

export function stopSessionList(): void {
  stopWatching?.();
  stopWatching = null;
}

/** A transcript left this far behind its session is read again from the end, not caught up. */
const STALE_AFTER = 4 * EVENT_PAGE;

interface Live {
  transcript: Transcript;
  refs: number;
  unwatch: (() => void) | null;
  /** The newest page is being read. */
  loading: boolean;
  release: () => void;
}

const transcripts = new Map<string, Live>();

/**
 * Get (and start watching) the transcript of a session. Call the returned release when done.
 * A session opens at its end: the newest page of events is read first, then the WebSocket
 * follows on from that page's last seq; older pages are read on demand (`loadOlder`).
 */
export function openTranscript(id: string): { transcript: Transcript; release: () => void } {
  let live = transcripts.get(id);
  if (live && live.refs === 0 && farBehind(id, live.transcript)) {
    live.release();
    transcripts.delete(id);
    live = undefined;
  }
  if (!live) {
    const t = new Transcript(id);
    const l: Live = {
      transcript: t,
      refs: 0,
      unwatch: null,
      loading: false,
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
  if (!l.transcript.loaded) void loadNewest(l);
  else if (!l.unwatch) watch(l);
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

/**
 * A comment as the server answered a change to it (`deleted`: it is gone): shown at once in the
 * session's transcript, if it is held, without waiting for its event.
 */
export function keepComment(sessionId: string, c: ReviewComment, deleted = false): void {
  transcripts.get(sessionId)?.transcript.putComment(c, deleted);
}

/** The session list says many events came since this transcript last heard of it. */
function farBehind(id: string, t: Transcript): boolean {
  const s = sessions.get()?.find((x) => x.id === id);
  return !!s && s.last_seq - t.lastSeq > STALE_AFTER;
}

function watch(l: Live): void {
  const t = l.transcript;
  l.unwatch = connection.watch(t.sessionId, {
    lastSeq: () => t.lastSeq,
    onEvents: (events) => t.push(events),
  });
}

async function loadNewest(l: Live): Promise<void> {
  if (l.loading) return;
  l.loading = true;
  const t = l.transcript;
  const current = () => transcripts.get(t.sessionId) === l;
  try {
    // The socket goes on from the page's last seq: nothing missed, nothing twice.
    if (await readNewest(t, { wanted: () => l.refs > 0 && current(), current }) && l.refs > 0 && !l.unwatch) watch(l);
  } finally {
    l.loading = false;
  }
}
