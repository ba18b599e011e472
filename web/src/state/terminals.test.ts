import { describe, expect, it } from "vitest";
import type { SocketTap } from "../api/socket";
import type { WsClientFrame, WsServerFrame } from "../api/types";
import { type TermSink, type TermStore, Terminals } from "./terminals";

/** A socket that records what is sent and lets the test answer. */
class FakeSocket {
  open = true;
  sent: (WsClientFrame | Uint8Array)[] = [];
  tapped: SocketTap | null = null;
  tap(t: SocketTap) {
    this.tapped = t;
    return () => undefined;
  }
  isOpen() {
    return this.open;
  }
  sendNow(f: WsClientFrame | Uint8Array) {
    if (!this.open) return false;
    this.sent.push(f);
    return true;
  }
  /** The last text frame sent. */
  last(): Extract<WsClientFrame, { id?: string | null }> {
    const f = [...this.sent].reverse().find((x) => !(x instanceof Uint8Array));
    if (!f || f instanceof Uint8Array) throw new Error("no frame sent");
    return f as Extract<WsClientFrame, { id?: string | null }>;
  }
  frame(f: WsServerFrame) {
    this.tapped?.onFrame(f);
  }
  bytes(channel: number, text: string) {
    const b = new TextEncoder().encode(text);
    const d = new Uint8Array(b.length + 1);
    d[0] = channel;
    d.set(b, 1);
    this.tapped?.onBinary(d);
  }
}

class Screen implements TermSink {
  text = "";
  resets = 0;
  write(d: Uint8Array) {
    this.text += new TextDecoder().decode(d);
  }
  reset() {
    this.text = "";
    this.resets++;
  }
}

const memory = (): TermStore & { v: string | null } => {
  const m = { v: null as string | null, read: () => m.v, write: (v: string) => void (m.v = v) };
  return m;
};

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("terminals", () => {
  it("opens at the view's size, routes its channel's output (also before the ack) and sends keys on it", async () => {
    const sock = new FakeSocket();
    const store = memory();
    const t = new Terminals(sock, store);
    const key = t.add("S1");
    const screen = new Screen();
    t.bind(key, screen);
    t.measure(key, 100, 30);
    const open = sock.last();
    expect(open).toMatchObject({ type: "terminal_open", session: "S1", cols: 100, rows: 30 });
    expect("terminal" in open).toBe(false);
    // The scrollback comes before the ack that names its channel.
    sock.bytes(3, "hello ");
    expect(screen.text).toBe("");
    sock.frame({ type: "ack", id: open.id, result: { terminal: "T1", channel: 3 } });
    await flush();
    sock.bytes(3, "world");
    sock.bytes(4, "not mine");
    expect(screen.text).toBe("hello world");
    expect(t.list("S1").get()[0]).toMatchObject({ id: "T1", n: 1, status: { kind: "open" }, size: { cols: 100, rows: 30 } });
    expect(t.input(key, "ls\r")).toBe(true);
    const input = sock.sent[sock.sent.length - 1] as Uint8Array;
    expect(Array.from(input)).toEqual([3, ...new TextEncoder().encode("ls\r")]);
    expect(JSON.parse(store.v ?? "{}")).toEqual({ S1: { shown: false, ids: ["T1"] } });
    // A paste longer than the socket's 64 KiB message limit goes in pieces, in order.
    const before = sock.sent.length;
    const paste = "y".repeat(100_000);
    expect(t.input(key, paste)).toBe(true);
    const parts = sock.sent.slice(before) as Uint8Array[];
    expect(parts.length).toBe(4);
    expect(parts.every((p) => p[0] === 3 && p.length <= 32 * 1024 + 1)).toBe(true);
    expect(parts.reduce((n, p) => n + p.length - 1, 0)).toBe(100_000);
  });

  it("resizes when measured again, and keeps the size the server accepted", async () => {
    const sock = new FakeSocket();
    const t = new Terminals(sock, null);
    const key = t.add("S1");
    t.measure(key, 80, 24);
    sock.frame({ type: "ack", id: sock.last().id, result: { terminal: "T1", channel: 1 } });
    await flush();
    t.measure(key, 80, 24);
    expect(sock.sent.length).toBe(1);
    t.measure(key, 50, 20);
    const resize = sock.last();
    expect(resize).toMatchObject({ type: "terminal_resize", terminal: "T1", cols: 50, rows: 20 });
    sock.frame({ type: "ack", id: resize.id, result: { terminal: "T1" } });
    await flush();
    expect(t.list("S1").get()[0].size).toEqual({ cols: 50, rows: 20 });
  });

  it("attaches again when the socket comes back, clearing the screen for the replay", async () => {
    const sock = new FakeSocket();
    const t = new Terminals(sock, null);
    const key = t.add("S1");
    const screen = new Screen();
    t.bind(key, screen);
    t.measure(key, 80, 24);
    sock.frame({ type: "ack", id: sock.last().id, result: { terminal: "T1", channel: 1 } });
    await flush();
    sock.bytes(1, "$ echo hi\r\nhi\r\n");
    sock.open = false;
    sock.tapped?.onClose();
    expect(t.list("S1").get()[0].status.kind).toBe("reconnecting");
    expect(t.input(key, "x")).toBe(false);
    sock.open = true;
    sock.tapped?.onOpen();
    const attach = sock.last();
    expect(attach).toMatchObject({ type: "terminal_open", terminal: "T1", cols: 80, rows: 24 });
    sock.bytes(2, "$ echo hi\r\nhi\r\n");
    sock.frame({ type: "ack", id: attach.id, result: { terminal: "T1", channel: 2 } });
    await flush();
    expect(screen.resets).toBe(2);
    expect(screen.text).toBe("$ echo hi\r\nhi\r\n");
  });

  it("restores kept terminals after a reload; one the server no longer has shows as ended", async () => {
    const store = memory();
    store.v = JSON.stringify({ S1: { shown: true, ids: ["T1", "T2"] } });
    const sock = new FakeSocket();
    const t = new Terminals(sock, store);
    expect(t.shown("S1").get()).toBe(true);
    const [a, b] = t.list("S1").get();
    expect([a.id, b.id, a.n, b.n]).toEqual(["T1", "T2", 1, 2]);
    t.measure(a.key, 80, 24);
    sock.frame({ type: "error", id: sock.last().id, error: { code: "not_found", message: "no such terminal" } });
    await flush();
    expect(t.list("S1").get()[0].status).toEqual({ kind: "closed", reason: "expired" });
    expect(JSON.parse(store.v ?? "{}")).toEqual({ S1: { shown: true, ids: ["T2"] } });
  });

  it("shows the shell's exit and the server's close, and closes on request", async () => {
    const sock = new FakeSocket();
    const t = new Terminals(sock, null);
    const key = t.add("S1");
    t.measure(key, 80, 24);
    sock.frame({ type: "ack", id: sock.last().id, result: { terminal: "T1", channel: 1 } });
    await flush();
    sock.frame({ type: "terminal_exited", terminal: "T1", code: 2 });
    expect(t.list("S1").get()[0].status).toEqual({ kind: "exited", code: 2 });
    sock.frame({ type: "terminal_closed", terminal: "T1", reason: "idle" });
    expect(t.list("S1").get()[0].status).toEqual({ kind: "closed", reason: "idle" });
    const other = t.add("S1");
    t.measure(other, 80, 24);
    sock.frame({ type: "ack", id: sock.last().id, result: { terminal: "T2", channel: 1 } });
    await flush();
    expect(t.list("S1").get().map((v) => v.n)).toEqual([1, 2]);
    t.close(other);
    expect(sock.last()).toMatchObject({ type: "terminal_close", terminal: "T2" });
    expect(t.list("S1").get().map((v) => v.id)).toEqual(["T1"]);
  });

  it("attaches a kept terminal at once, before any view measures it (the server keeps it 10 s)", async () => {
    const store = memory();
    store.v = JSON.stringify({ S1: { shown: false, ids: ["T9"] } });
    const sock = new FakeSocket();
    const t = new Terminals(sock, store);
    t.list("S1");
    await flush();
    const attach = sock.last();
    expect(attach).toMatchObject({ type: "terminal_open", session: "S1", terminal: "T9" });
    expect("cols" in attach).toBe(false);
    sock.frame({ type: "ack", id: attach.id, result: { terminal: "T9", channel: 5 } });
    await flush();
    // Its view shows later and measures it: resized then.
    t.measure(t.list("S1").get()[0].key, 90, 20);
    expect(sock.last()).toMatchObject({ type: "terminal_resize", terminal: "T9", cols: 90, rows: 20 });
  });

  it("waits for the socket before opening", () => {
    const sock = new FakeSocket();
    sock.open = false;
    const t = new Terminals(sock, null);
    const key = t.add("S1");
    t.measure(key, 80, 24);
    expect(sock.sent).toEqual([]);
    sock.open = true;
    sock.tapped?.onOpen();
    expect(sock.last()).toMatchObject({ type: "terminal_open", session: "S1" });
  });
});
