import { describe, expect, it } from "vitest";
import type { KeptFile } from "../api/types";
import { changedByText, includedPaths, tick } from "./kept";

const kept = (path: string, sessions: string[] = []): KeptFile => ({
  path,
  action: "deleted",
  changed_by: sessions.length > 0 ? "session" : "hand",
  sessions,
});
const titles: Record<string, string> = { S1: "Writer B", S2: "  " };
const title = (id: string) => titles[id] ?? null;

describe("kept files", () => {
  it("says who changed each: by hand, or by a session named by its title, else its id", () => {
    expect(changedByText(kept("a.txt"), title)).toBe("changed by hand");
    expect(changedByText(kept("b.txt", ["S1"]), title)).toBe("changed by session “Writer B”");
    // A blank title, or a session the list does not know: its id.
    expect(changedByText(kept("c.txt", ["S2"]), title)).toBe("changed by session S2");
    expect(changedByText(kept("d.txt", ["S9"]), title)).toBe("changed by session S9");
    expect(changedByText(kept("e.txt", ["S1", "S2", "S9"]), title)).toBe("changed by sessions “Writer B”, S2 and S9");
  });

  it("includes only ticked paths the check still keeps, in its order", () => {
    const list = [kept("a.txt"), kept("b.txt", ["S1"]), kept("c.txt")];
    expect(includedPaths(list, [])).toEqual([]);
    expect(includedPaths(list, ["c.txt", "gone.txt", "a.txt"])).toEqual(["a.txt", "c.txt"]);
  });

  it("ticks and unticks a path, each once", () => {
    expect(tick([], "a.txt", true)).toEqual(["a.txt"]);
    expect(tick(["a.txt"], "a.txt", true)).toEqual(["a.txt"]);
    expect(tick(["a.txt", "b.txt"], "a.txt", false)).toEqual(["b.txt"]);
    expect(tick(["b.txt"], "a.txt", false)).toEqual(["b.txt"]);
  });
});
