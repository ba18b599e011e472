// One WebSocket for the whole app. It (re)subscribes every watched session
// with the last seq it has, so a dropped connection or a reload resumes
// without gaps or duplicates, and it reconnects by itself with backoff. Its first frame is the
// page token (page.ts): the server closes a cookie's socket without it (1008).
import { Observable } from "../state/observable";
import { isEventFrame, isWsServerFrame } from "./events";
import { pageToken } from "./page";
import type { EventFrame, SessionListFrame, WsClientFrame, WsServerFrame } from "./types";

export type ConnState = "connecting" | "open" | "reconnecting" | "offline";

interface Watch {
  lastSeq: () => number;
  onEvents: (events: EventFrame[]) => void;
}

interface SessionsListener {
  /** The socket opened (first time or again): read the list, changes since then will follow. */
  onOpen: () => void;
  onFrame: (f: SessionListFrame) => void;
}

/**
 * Another user of the socket (the terminals, state/terminals.ts): told when it opens (after the
 * auth frame and the subscriptions) and when it is gone, and given the binary frames and the
 * control frames the socket itself does not read (acks, errors, terminal frames).
 */
export interface SocketTap {
  onOpen: () => void;
  onClose: () => void;
  onFrame: (f: WsServerFrame) => void;
  onBinary: (data: Uint8Array) => void;
}

function isSessionListFrame(f: WsServerFrame): f is SessionListFrame {
  return f.type === "session_updated" || f.type === "session_deleted" || f.type === "sessions_resync";
}

const MIN_DELAY = 500;
const MAX_DELAY = 10_000;

export class Connection {
  readonly state = new Observable<ConnState>("connecting");
  /** Milliseconds until the next attempt while reconnecting (for the indicator). */
  readonly nextAttemptAt = new Observable<number>(0);
  /** Counts the times the socket opened again after a loss: views refresh what went stale. */
  readonly reopened = new Observable<number>(0);
  private everOpened = false;
  private ws: WebSocket | null = null;
  private watches = new Map<string, Watch>();
  private delay = MIN_DELAY;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  private listening = false;
  private failures = 0;
  /** Called after repeated failures so the app can check whether we are still signed in. */
  onTrouble: (() => void) | null = null;
  /**
   * The live session list (`subscribe_sessions`): set, it is subscribed on every (re)connect and
   * told each time the socket opened (to read the list again), and gets the list's frames.
   */
  private sessionsListener: SessionsListener | null = null;
  private taps = new Set<SocketTap>();

  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.listening) {
      this.listening = true;
      window.addEventListener("online", () => this.reconnectNow());
      window.addEventListener("offline", () => this.goOffline());
      document.addEventListener("visibilitychange", () => {
        if (document.visibilityState === "visible" && this.state.get() !== "open") this.reconnectNow();
      });
    }
    this.open();
  }

  /**
   * The browser says the network is gone: drop the socket (it may linger half-open for a long
   * time) and say "Offline". Attempts go on with backoff, since a server on loopback stays
   * reachable without a network, and the `online` event retries at once.
   */
  private goOffline(): void {
    if (!this.started) return;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    if (ws) this.tapsClosed();
    this.scheduleReconnect();
  }

  stop(): void {
    this.started = false;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    if (ws) this.tapsClosed();
    this.state.set("offline");
  }

  watch(session: string, w: Watch): () => void {
    this.watches.set(session, w);
    this.send({ type: "subscribe", session, after: w.lastSeq() });
    return () => {
      if (this.watches.get(session) === w) {
        this.watches.delete(session);
        this.send({ type: "unsubscribe", session });
      }
    };
  }

  /** Follow the session list live; returns the function that stops it. */
  watchSessions(l: SessionsListener): () => void {
    this.sessionsListener = l;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.send({ type: "subscribe_sessions" });
      l.onOpen();
    }
    return () => {
      if (this.sessionsListener !== l) return;
      this.sessionsListener = null;
      this.send({ type: "unsubscribe_sessions" });
    };
  }

  /** Subscribe again from the current seq (e.g. after a refetch). */
  resubscribe(session: string): void {
    const w = this.watches.get(session);
    if (w) this.send({ type: "subscribe", session, after: w.lastSeq() });
  }

  /** Use the socket alongside the app (see `SocketTap`); returns the function that stops it. */
  tap(t: SocketTap): () => void {
    this.taps.add(t);
    return () => {
      this.taps.delete(t);
    };
  }

  /** The socket is open: what `sendNow` sends goes out. */
  isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a frame (a command, or a terminal channel's binary frame) now; false: no open socket, nothing sent. */
  sendNow(frame: WsClientFrame | Uint8Array): boolean {
    if (!this.isOpen()) return false;
    this.ws?.send(frame instanceof Uint8Array ? frame : JSON.stringify(frame));
    return true;
  }

  private tapsClosed(): void {
    for (const t of this.taps) t.onClose();
  }

  reconnectNow(): void {
    if (!this.started) return;
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    clearTimeout(this.timer);
    this.delay = MIN_DELAY;
    this.open();
  }

  private send(frame: WsClientFrame): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  private open(): void {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws: WebSocket;
    try {
      ws = new WebSocket(`${proto}//${location.host}/api/ws`);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    const s = this.state.get();
    if (s !== "reconnecting" && s !== "offline") this.state.set("connecting");
    ws.onopen = () => {
      if (this.ws !== ws) return;
      const reopened = this.everOpened;
      this.everOpened = true;
      this.state.set("open");
      if (reopened) this.reopened.set(this.reopened.get() + 1);
      this.delay = MIN_DELAY;
      this.failures = 0;
      // Before anything else. Without a token the server closes the socket, and the REST calls'
      // 401 shows the sign-in.
      const page = pageToken();
      if (page) ws.send(JSON.stringify({ type: "auth", page } satisfies WsClientFrame));
      for (const [session, w] of this.watches) {
        ws.send(JSON.stringify({ type: "subscribe", session, after: w.lastSeq() } satisfies WsClientFrame));
      }
      // Subscribed before the list is read again: no change falls between the two.
      if (this.sessionsListener) {
        ws.send(JSON.stringify({ type: "subscribe_sessions" } satisfies WsClientFrame));
        this.sessionsListener.onOpen();
      }
      for (const t of this.taps) t.onOpen();
    };
    ws.onmessage = (m) => {
      if (this.ws !== ws) return;
      if (m.data instanceof ArrayBuffer) {
        const data = new Uint8Array(m.data);
        for (const t of this.taps) t.onBinary(data);
        return;
      }
      if (typeof m.data !== "string") return;
      let frame: unknown;
      try {
        frame = JSON.parse(m.data);
      } catch {
        return;
      }
      this.dispatch(frame);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.tapsClosed();
      this.failures++;
      // 1008: the server refused the socket's sign-in (a page token it does not know).
      if (this.failures >= 2 || e.code === 1008) this.onTrouble?.();
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      // onclose follows and schedules the retry.
    };
  }

  private dispatch(frame: unknown): void {
    const list = Array.isArray(frame) ? frame : [frame];
    const bySession = new Map<string, EventFrame[]>();
    for (const f of list) {
      if (isWsServerFrame(f)) {
        if (isSessionListFrame(f)) this.sessionsListener?.onFrame(f);
        else for (const t of this.taps) t.onFrame(f);
        continue;
      }
      if (!isEventFrame(f)) continue;
      let arr = bySession.get(f.session);
      if (!arr) bySession.set(f.session, (arr = []));
      arr.push(f);
    }
    for (const [session, events] of bySession) this.watches.get(session)?.onEvents(events);
  }

  private scheduleReconnect(): void {
    if (!this.started) return;
    this.state.set(navigator.onLine === false ? "offline" : "reconnecting");
    const jitter = Math.random() * 0.3 * this.delay;
    const wait = Math.round(this.delay + jitter);
    this.nextAttemptAt.set(Date.now() + wait);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), wait);
    this.delay = Math.min(this.delay * 2, MAX_DELAY);
  }
}

export const connection = new Connection();
