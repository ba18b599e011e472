// What `/diff` shows, from a session's events: each file's patches, rewinds and redos in order.
import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventFrame, EventOf, EventType } from "../api/types";
import { firstMessageId, sessionChanges, unrecordedPaths } from "./sessionDiff";

type Fields<T extends EventType> = Omit<EventOf<T>, keyof EventEnvelope | "type">;

function ev<T extends EventType>(seq: number, type: T, fields: Fields<T>): EventOf<T> {
  const frame: EventEnvelope & { type: T } = { seq, session: "S1", run: "R1", at: seq, type };
  return { ...frame, ...fields } as EventOf<T>;
}

const patch = (path: string, from: string, to: string) =>
  `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-${from}\n+${to}\n`;
const diff = (path: string, from: string, to: string) => ({ type: "diff" as const, path, lang: "text", patch: patch(path, from, to), truncated: false });
const result = (seq: number, tool: string, parts: ReturnType<typeof diff>[]) =>
  ev(seq, "tool_result", { call_id: `C${seq}`, tool, ok: true, text: "ok", parts });

const EVENTS: EventFrame[] = [
  ev(1, "user_message", { message_id: "M1", text: "first change" }),
  result(2, "write_file", [diff("notes.txt", "original", "one")]),
  ev(3, "tool_result", { call_id: "C3", tool: "shell", ok: true, text: "done", parts: [] }),
  ev(4, "user_message", { message_id: "M4", text: "second change" }),
  result(5, "edit_file", [diff("./notes.txt", "one", "two"), diff("extra.txt", "", "extra")]),
  ev(6, "session_reverted", { revert_id: "V1", message_id: "M4", runs: ["R2"], files: [{ path: "notes.txt", action: "restored" }, { path: "extra.txt", action: "deleted" }] }),
  ev(7, "revert_undone", { revert_id: "V1", runs: ["R2"], files: [{ path: "extra.txt", action: "restored" }] }),
];

describe("the session's changes", () => {
  const files = sessionChanges(EVENTS);

  it("lists each file once, in the order it was first changed, its path as the reverts name it", () => {
    expect(files.map((f) => f.path)).toEqual(["notes.txt", "extra.txt"]);
  });

  it("gives each file its patches, rewinds and redos in order, with the prompt of each", () => {
    const notes = files[0].steps.map((s) => [s.kind, s.seq, s.prompt]);
    expect(notes).toEqual([
      ["diff", 2, "first change"],
      ["diff", 5, "second change"],
      ["revert", 6, "second change"],
    ]);
    const extra = files[1].steps.map((s) => (s.kind === "diff" ? [s.kind, s.tool] : [s.kind, s.action]));
    expect(extra).toEqual([
      ["diff", "edit_file"],
      ["revert", "deleted"],
      ["redo", "restored"],
    ]);
  });

  it("counts the lines the patches added and removed", () => {
    expect([files[0].added, files[0].removed]).toEqual([2, 2]);
  });

  it("has nothing for a session whose tools changed no file", () => {
    expect(sessionChanges([EVENTS[0], EVENTS[2]])).toEqual([]);
  });

  it("knows the first prompt, for the dry run of a rewind to it", () => {
    expect(firstMessageId(EVENTS)).toBe("M1");
    expect(firstMessageId([EVENTS[2]])).toBeNull();
  });

  it("names the files the dry run lists that no patch covers", () => {
    const dry = [
      { path: "notes.txt", action: "restored" },
      { path: "made-by-shell.txt", action: "deleted" },
      { path: "./made-by-shell.txt", action: "deleted" },
    ];
    expect(unrecordedPaths(files, dry)).toEqual(["made-by-shell.txt"]);
  });
});
