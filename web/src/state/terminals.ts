// Terminals in the browser: the shells a session's owner opens in the session's jail, over the
// app's one WebSocket. `terminal_open` is answered by an ack naming the terminal and a channel
// number; binary frames whose first byte is that channel carry its output one way and the keys
// typed the other. Output on a channel can arrive before the ack that names it (the server starts
// sending the scrollback at once), so it waits here until then.
//
// Each session's terminals are kept by id in sessionStorage: a reload, or a socket that opens
// again, attaches to them within the server's 10 s grace, and their scrollback is replayed first
// (the screen is cleared for it). Each terminal also keeps what it printed since (up to
// HISTORY_BYTES), so a view that mounts again (another session was shown meanwhile) shows it all.
import { connection, type SocketTap } from "../api/socket";
import type { WsClientFrame, WsServerFrame } from "../api/types";
import { Observable } from "./observable";

/** Where a terminal stands. */
/** Input bytes per binary frame (the server takes messages of at most 64 KiB). */
const INPUT_CHUNK = 32 * 1024;

export type TermStatus =
  /** Not asked for yet: waits for its view's size, or for the socket. */
  | { kind: "waiting" }
  | { kind: "opening" }
  | { kind: "open" }
  /** The socket went; it is attached again when the socket is back. */
  | { kind: "reconnecting" }
  /** The shell ended (its output stays). */
  | { kind: "exited"; code: number | null }
  /** The server closed it (`closed`, `idle`, `detached`, `session_deleted`, `signed_out`, or `expired`: gone when the page came back). */
  | { kind: "closed"; reason: string }
  | { kind: "failed"; message: string };

/** One terminal as a view shows it. */
export interface TermView {
  /** This page's name for it (stable while the page lives). */
  key: string;
  /** The server's id (null until the first ack). */
  id: string | null;
  /** Its tab's number in the session: 1, 2 … */
  n: number;
  status: TermStatus;
  /** The size the server last accepted (null: none yet). */
  size: { cols: number; rows: number } | null;
}

/** Where a terminal's output goes: its view's screen. */
export interface TermSink {
  write(data: Uint8Array): void;
  /** The scrollback is about to be replayed (an attach): start from a clean screen. */
  reset(): void;
}

/** What this module needs of the socket (api/socket.ts's `Connection`). */
export interface TermSocket {
  tap(t: SocketTap): () => void;
  isOpen(): boolean;
  sendNow(frame: WsClientFrame | Uint8Array): boolean;
}

/** What is kept across a reload (sessionStorage). */
export interface TermStore {
  read(): string | null;
  write(v: string): void;
}

/** A command the server refused (`error` frame), with its code. */
export class TermError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The socket closed before the answer came. */
class SocketGone extends Error {}

/** What a terminal printed that is kept for a view that mounts again. */
const HISTORY_BYTES = 1 << 20;
/** Output of a channel not yet named by an ack: at most this much is held. */
const EARLY_BYTES = 4 << 20;

interface Rec {
  key: string;
  session: string;
  n: number;
  id: string | null;
  channel: number | null;
  status: TermStatus;
  /** The size its view wants (null: no view has measured it yet). */
  want: { cols: number; rows: number } | null;
  size: { cols: number; rows: number } | null;
  sink: TermSink | null;
  history: Uint8Array[];
  historyBytes: number;
  /** Bumped by each open or attach: a late answer to an older one is ignored. */
  gen: number;
}

interface Kept {
  /** The panel shows. */
  shown: boolean;
  ids: string[];
}

const encoder = new TextEncoder();

export class Terminals implements SocketTap {
  private readonly recs = new Map<string, Rec>();
  private readonly lists = new Map<string, Observable<readonly TermView[]>>();
  private readonly shownBy = new Map<string, Observable<boolean>>();
  private readonly byChannel = new Map<number, Rec>();
  private readonly early = new Map<number, Uint8Array[]>();
  private earlyBytes = 0;
  private readonly requests = new Map<string, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  private kept: Record<string, Kept>;
  private nextKey = 0;
  private nextRequest = 0;
  private tapped = false;

  constructor(
    private readonly socket: TermSocket,
    private readonly store: TermStore | null,
  ) {
    this.kept = readKept(store);
  }

  // ---- what views read --------------------------------------------------------

  /** The session's terminals, oldest first (those kept from before a reload included). */
  list(session: string): Observable<readonly TermView[]> {
    let o = this.lists.get(session);
    if (!o) {
      this.lists.set(session, (o = new Observable<readonly TermView[]>([])));
      const kept = (this.kept[session]?.ids ?? []).map((id) => this.make(session, id));
      this.emit(session);
      // Attached again at once, whether or not a view shows them: the server keeps them 10 s.
      queueMicrotask(() => {
        for (const r of kept) if (r.status.kind === "waiting") void this.start(r);
      });
    }
    return o;
  }

  /** Whether the session's terminal panel shows (kept across a reload). */
  shown(session: string): Observable<boolean> {
    let o = this.shownBy.get(session);
    if (!o) this.shownBy.set(session, (o = new Observable(this.kept[session]?.shown ?? false)));
    return o;
  }

  setShown(session: string, show: boolean): void {
    this.shown(session).set(show);
    this.persist(session);
  }

  // ---- what views do ----------------------------------------------------------

  /** A new terminal in the session: opened once its view has measured it. Returns its key. */
  add(session: string): string {
    this.list(session);
    const r = this.make(session, null);
    this.emit(session);
    return r.key;
  }

  /**
   * The view measured the terminal (first or again): it is opened (or attached) at that size, or
   * resized to it.
   */
  measure(key: string, cols: number, rows: number): void {
    const r = this.recs.get(key);
    if (!r) return;
    const same = r.want && r.want.cols === cols && r.want.rows === rows;
    r.want = { cols, rows };
    if (r.status.kind === "waiting") void this.start(r);
    else if (!same && r.status.kind !== "opening" && r.id && r.channel !== null) void this.resize(r);
  }

  /** The terminal's output goes to `sink` (what it printed so far first); returns the unbinding. */
  bind(key: string, sink: TermSink): () => void {
    const r = this.recs.get(key);
    if (!r) return () => undefined;
    r.sink = sink;
    for (const chunk of r.history) sink.write(chunk);
    return () => {
      if (r.sink === sink) r.sink = null;
    };
  }

  /** Keys typed or text pasted: sent while the terminal is attached (dropped otherwise). */
  input(key: string, data: string | Uint8Array): boolean {
    const r = this.recs.get(key);
    if (!r || r.channel === null || r.status.kind !== "open") return false;
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    // A long paste goes in pieces: the socket takes messages of at most 64 KiB.
    for (let at = 0; at < bytes.length || at === 0; at += INPUT_CHUNK) {
      const part = bytes.subarray(at, at + INPUT_CHUNK);
      const frame = new Uint8Array(part.length + 1);
      frame[0] = r.channel;
      frame.set(part, 1);
      if (!this.socket.sendNow(frame)) return false;
      if (bytes.length === 0) break;
    }
    return true;
  }

  /** Close the terminal (its shell ends) and drop its tab. */
  close(key: string): void {
    const r = this.recs.get(key);
    if (!r) return;
    this.recs.delete(key);
    r.gen++;
    r.sink = null;
    if (r.id && r.channel !== null && this.socket.isOpen()) {
      const channel = r.channel;
      this.request({ type: "terminal_close", terminal: r.id }).then(
        () => this.freeChannel(channel, r),
        () => this.freeChannel(channel, r),
      );
    }
    // Not attached: the server ends it once its 10 s without a page are over.
    this.emit(r.session);
    this.persist(r.session);
  }

  // ---- the socket ---------------------------------------------------------------

  onOpen(): void {
    for (const r of this.recs.values()) {
      if (r.status.kind === "reconnecting" || r.status.kind === "waiting") void this.start(r);
    }
  }

  onClose(): void {
    for (const { reject } of this.requests.values()) reject(new SocketGone("the connection was lost"));
    this.requests.clear();
    this.byChannel.clear();
    this.early.clear();
    this.earlyBytes = 0;
    const touched = new Set<string>();
    for (const r of this.recs.values()) {
      r.channel = null;
      const k = r.status.kind;
      if (k === "open" || k === "opening" || k === "reconnecting") {
        // Without an id yet, a new one is opened (the half-opened one ends by itself).
        r.status = r.id ? { kind: "reconnecting" } : { kind: "waiting" };
        r.gen++;
        touched.add(r.session);
      }
    }
    for (const s of touched) this.emit(s);
  }

  onFrame(f: WsServerFrame): void {
    switch (f.type) {
      case "ack":
      case "error": {
        const p = f.id ? this.requests.get(f.id) : undefined;
        if (!p || !f.id) return;
        this.requests.delete(f.id);
        if (f.type === "ack") p.resolve(f.result);
        else p.reject(new TermError(f.error.code, f.error.message));
        return;
      }
      case "terminal_exited": {
        const r = this.byId(f.terminal);
        if (!r) return;
        r.status = { kind: "exited", code: f.code ?? null };
        this.emit(r.session);
        this.persist(r.session);
        return;
      }
      case "terminal_closed": {
        const r = this.byId(f.terminal);
        if (!r) return;
        if (r.channel !== null) this.freeChannel(r.channel, r);
        r.channel = null;
        r.status = { kind: "closed", reason: f.reason };
        this.emit(r.session);
        this.persist(r.session);
        return;
      }
      default:
        return;
    }
  }

  onBinary(data: Uint8Array): void {
    if (data.length < 1) return;
    const channel = data[0];
    const bytes = data.subarray(1);
    const r = this.byChannel.get(channel);
    if (r) {
      this.output(r, bytes);
      return;
    }
    // Before the ack that names the channel: held until it comes.
    if (this.earlyBytes + bytes.length > EARLY_BYTES) return;
    let held = this.early.get(channel);
    if (!held) this.early.set(channel, (held = []));
    held.push(bytes.slice());
    this.earlyBytes += bytes.length;
  }

  // ---- inside -------------------------------------------------------------------

  private make(session: string, id: string | null): Rec {
    this.ensureTapped();
    const taken = new Set([...this.recs.values()].filter((r) => r.session === session).map((r) => r.n));
    let n = 1;
    while (taken.has(n)) n++;
    const r: Rec = {
      key: `t${++this.nextKey}`,
      session,
      n,
      id,
      channel: null,
      status: { kind: "waiting" },
      want: null,
      size: null,
      sink: null,
      history: [],
      historyBytes: 0,
      gen: 0,
    };
    this.recs.set(r.key, r);
    return r;
  }

  private ensureTapped(): void {
    if (this.tapped) return;
    this.tapped = true;
    this.socket.tap(this);
  }

  /**
   * Open the terminal at its view's size, or attach to it again (it has an id; without a size
   * yet, the server's default until its view measures it).
   */
  private async start(r: Rec): Promise<void> {
    if (!this.socket.isOpen() || !this.recs.has(r.key)) return;
    const attach = r.id;
    if (!attach && !r.want) return;
    const gen = ++r.gen;
    r.status = attach ? { kind: "reconnecting" } : { kind: "opening" };
    this.emit(r.session);
    const size = r.want;
    let result: unknown;
    try {
      result = await this.request({
        type: "terminal_open",
        session: r.session,
        ...(size ? { cols: size.cols, rows: size.rows } : {}),
        ...(attach ? { terminal: attach } : {}),
      });
    } catch (e) {
      if (gen !== r.gen || e instanceof SocketGone) return;
      const gone = attach && e instanceof TermError && e.code === "not_found";
      r.status = gone ? { kind: "closed", reason: "expired" } : { kind: "failed", message: e instanceof Error ? e.message : String(e) };
      this.emit(r.session);
      this.persist(r.session);
      return;
    }
    const named = readOpened(result);
    if (!named) {
      if (gen === r.gen) {
        r.status = { kind: "failed", message: "The server's answer named no terminal." };
        this.emit(r.session);
      }
      return;
    }
    if (gen !== r.gen || !this.recs.has(r.key)) {
      // Closed (or superseded) while it was being opened: end the one the server made.
      if (!this.recs.has(r.key)) {
        this.request({ type: "terminal_close", terminal: named.terminal }).then(
          () => this.dropEarly(named.channel),
          () => this.dropEarly(named.channel),
        );
      }
      return;
    }
    r.id = named.terminal;
    r.channel = named.channel;
    r.size = size;
    r.status = { kind: "open" };
    this.byChannel.set(named.channel, r);
    // What comes now starts from the terminal's beginning (its scrollback): the screen is cleared.
    r.history = [];
    r.historyBytes = 0;
    r.sink?.reset();
    for (const chunk of this.early.get(named.channel) ?? []) {
      this.earlyBytes -= chunk.length;
      this.output(r, chunk);
    }
    this.early.delete(named.channel);
    this.emit(r.session);
    this.persist(r.session);
    // Its view was measured (again) while it opened.
    if (r.want && (!size || r.want.cols !== size.cols || r.want.rows !== size.rows)) void this.resize(r);
  }

  private async resize(r: Rec): Promise<void> {
    if (!r.id || !r.want) return;
    const size = r.want;
    try {
      await this.request({ type: "terminal_resize", terminal: r.id, cols: size.cols, rows: size.rows });
    } catch {
      return; // the socket went (an attach sends the size again) or the terminal is gone (its frame says so)
    }
    if (r.want === size) {
      r.size = size;
      this.emit(r.session);
    }
  }

  private output(r: Rec, bytes: Uint8Array): void {
    const chunk = bytes.slice();
    r.history.push(chunk);
    r.historyBytes += chunk.length;
    while (r.historyBytes > HISTORY_BYTES && r.history.length > 1) {
      r.historyBytes -= r.history.shift()?.length ?? 0;
    }
    r.sink?.write(chunk);
  }

  private freeChannel(channel: number, r: Rec): void {
    if (this.byChannel.get(channel) === r) this.byChannel.delete(channel);
    this.dropEarly(channel);
  }

  private dropEarly(channel: number): void {
    for (const chunk of this.early.get(channel) ?? []) this.earlyBytes -= chunk.length;
    this.early.delete(channel);
  }

  private byId(id: string): Rec | undefined {
    for (const r of this.recs.values()) if (r.id === id) return r;
    return undefined;
  }

  private request(frame: WsClientFrame & { type: "terminal_open" | "terminal_resize" | "terminal_close" }): Promise<unknown> {
    const id = `term-${++this.nextRequest}`;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      if (!this.socket.sendNow({ ...frame, id })) {
        this.requests.delete(id);
        reject(new SocketGone("not connected"));
      }
    });
  }

  private emit(session: string): void {
    const views: TermView[] = [];
    for (const r of this.recs.values()) {
      if (r.session === session) views.push({ key: r.key, id: r.id, n: r.n, status: r.status, size: r.size });
    }
    this.lists.get(session)?.set(views);
  }

  /** Keep the session's live terminals (and whether its panel shows) for a reload. */
  private persist(session: string): void {
    const ids: string[] = [];
    for (const r of this.recs.values()) {
      const k = r.status.kind;
      if (r.session === session && r.id && k !== "closed" && k !== "failed" && k !== "exited") ids.push(r.id);
    }
    const shown = this.shownBy.get(session)?.get() ?? this.kept[session]?.shown ?? false;
    if (ids.length === 0 && !shown) delete this.kept[session];
    else this.kept[session] = { shown, ids };
    try {
      this.store?.write(JSON.stringify(this.kept));
    } catch {
      // storage full or off: a reload opens new terminals
    }
  }
}

function readOpened(v: unknown): { terminal: string; channel: number } | null {
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.terminal !== "string" || typeof o.channel !== "number") return null;
  if (!Number.isInteger(o.channel) || o.channel < 0 || o.channel > 255) return null;
  return { terminal: o.terminal, channel: o.channel };
}

function readKept(store: TermStore | null): Record<string, Kept> {
  let raw: string | null = null;
  try {
    raw = store?.read() ?? null;
  } catch {
    return {};
  }
  if (!raw) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return {};
  }
  if (typeof v !== "object" || v === null) return {};
  const out: Record<string, Kept> = {};
  for (const [session, k] of Object.entries(v)) {
    if (typeof k !== "object" || k === null) continue;
    const ids = Array.isArray(k.ids) ? k.ids.filter((x: unknown): x is string => typeof x === "string") : [];
    out[session] = { shown: k.shown === true, ids };
  }
  return out;
}

/** What this tab keeps across a reload (not shared with other tabs). */
export function sessionStore(key = "tradewind.terminals"): TermStore | null {
  try {
    const s = window.sessionStorage;
    return { read: () => s.getItem(key), write: (v) => s.setItem(key, v) };
  } catch {
    return null;
  }
}

/** The app's terminals, on the app's socket. */
export const terminals = new Terminals(connection, sessionStore());

/**
 * The session whose shown terminal is to take the focus (the header's button, a new tab): its
 * panel gives the focus to the screen once it exists, then clears this.
 */
export const terminalFocus = new Observable<string | null>(null);
