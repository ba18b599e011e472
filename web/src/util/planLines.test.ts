// Where a selection of a rendered plan is in its Markdown.
import { describe, expect, it } from "vitest";
import { plainLine, selectionLines } from "./planLines";

const PLAN = ["# Add a cache", "", "## Steps", "", "1. Add the **cache** module.", "2. Wire it into the `handlers`.", "3. Test hits and misses."].join("\n");

describe("a selection of the rendered plan", () => {
  it("reads a line without its Markdown marks", () => {
    expect(plainLine("2. Wire it into the `handlers`.")).toBe("Wire it into the handlers.");
    expect(plainLine("## Steps")).toBe("Steps");
  });

  it("covers the lines its first and last lines are on", () => {
    expect(selectionLines(PLAN, "Add the cache module.\nWire it into the handlers.")).toEqual({ start: 5, end: 6 });
    expect(selectionLines(PLAN, "cache module")).toEqual({ start: 5, end: 5 });
    expect(selectionLines(PLAN, "Steps\n\nAdd the cache module.\nWire it into the handlers.\nTest hits")).toEqual({ start: 3, end: 7 });
    expect(selectionLines(PLAN, "nothing like it")).toBeNull();
    expect(selectionLines(PLAN, "  \n")).toBeNull();
  });
});
