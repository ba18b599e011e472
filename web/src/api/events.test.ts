// The guards that type what arrives from the server (untrusted JSON) by the generated contract.
import { describe, expect, it } from "vitest";
import { isEventFrame, isKnownEvent, isWsServerFrame } from "./events";
import type { EventFrame, Session } from "./types";

const session: Session = {
  id: "S1",
  agent: "build",
  archived: false,
  created_at: 1,
  last_seq: 3,
  mode: "ask",
  status: "idle",
  title: "t",
  updated_at: 2,
  workspace: "/w",
};

describe("event frames", () => {
  it("need a numeric seq, a session and a type", () => {
    expect(isEventFrame({ seq: 1, session: "S1", at: 1, type: "wakeup", text: "", task_ids: [] })).toBe(true);
    expect(isEventFrame({ seq: "1", session: "S1", type: "wakeup" })).toBe(false);
    expect(isEventFrame({ session: "S1", type: "wakeup" })).toBe(false);
    expect(isEventFrame(null)).toBe(false);
  });

  it("are known when the document describes their type", () => {
    const known: EventFrame = { seq: 1, session: "S1", at: 1, type: "wakeup", text: "", task_ids: [] };
    const unknown: EventFrame = { seq: 2, session: "S1", at: 1, type: "from_the_future" };
    expect(isKnownEvent(known)).toBe(true);
    expect(isKnownEvent(unknown)).toBe(false);
  });
});

describe("WebSocket control frames", () => {
  it("reads the live session list's frames", () => {
    expect(isWsServerFrame({ type: "session_updated", session: "S1", data: session })).toBe(true);
    expect(isWsServerFrame({ type: "session_deleted", session: "S1" })).toBe(true);
    expect(isWsServerFrame({ type: "sessions_resync" })).toBe(true);
  });

  it("reads acks and errors", () => {
    expect(isWsServerFrame({ type: "ack", id: "1", result: {} })).toBe(true);
    expect(isWsServerFrame({ type: "error", id: "1", error: { code: "bad", message: "no" } })).toBe(true);
  });

  it("leaves events (with a seq) to the event guard, and refuses what lacks its fields", () => {
    expect(isWsServerFrame({ seq: 4, type: "session_updated", session: "S1", data: session, at: 1 })).toBe(false);
    expect(isWsServerFrame({ type: "session_updated", session: "S1", data: {} })).toBe(false);
    expect(isWsServerFrame({ type: "session_deleted" })).toBe(false);
    expect(isWsServerFrame({ type: "error", error: { code: 1 } })).toBe(false);
    expect(isWsServerFrame({ type: "pong" })).toBe(false);
  });
});
