import { describe, expect, it } from "vitest";
import type { HookFileInfo, HookInfo } from "../api/types";
import { HOOK_EVENTS, fileSource, groupHooks, matcherText, splitSkipped } from "./extensions";

const hook = (event: string, command: string, file = "/home/u/.tradewind/hooks.json"): HookInfo => ({
  event,
  command,
  file,
  matcher: null,
  timeout_secs: 10,
});

describe("a left-out skill folder", () => {
  it("splits the folder from the reason at the first ': ', keeping a reason's own", () => {
    expect(splitSkipped("/ws/.tradewind/skills/bad: the front matter has no description")).toEqual({
      path: "/ws/.tradewind/skills/bad",
      why: "the front matter has no description",
    });
    expect(splitSkipped("/ws/.claude/skills/x: SKILL.md cannot be read: Permission denied (os error 13)")).toEqual({
      path: "/ws/.claude/skills/x",
      why: "SKILL.md cannot be read: Permission denied (os error 13)",
    });
    expect(splitSkipped("C:\\ws\\skills\\x: no SKILL.md")).toEqual({ path: "C:\\ws\\skills\\x", why: "no SKILL.md" });
  });

  it("is all reason when it does not start with an absolute path", () => {
    expect(splitSkipped("not JSON: expected value")).toEqual({ path: null, why: "not JSON: expected value" });
    expect(splitSkipped("/no/colon/here")).toEqual({ path: null, why: "/no/colon/here" });
  });
});

describe("hooks by event", () => {
  it("follows the order a run meets the events, the hooks of one event in the server's order", () => {
    const hooks = [
      hook("Stop", "notify"),
      hook("PostToolUse", "fmt"),
      hook("PreToolUse", "guard"),
      hook("PostToolUse", "lint"),
      hook("SessionStart", "context"),
    ];
    const groups = groupHooks(hooks);
    expect(groups.map((g) => g.event)).toEqual(["SessionStart", "PreToolUse", "PostToolUse", "Stop"]);
    expect(groups[2].hooks.map((h) => h.command)).toEqual(["fmt", "lint"]);
    expect(groups.map((g) => g.tools)).toEqual([false, true, true, false]);
    expect(groups.every((g) => g.when !== "")).toBe(true);
  });

  it("puts an event it does not know after the known ones, by name, without a description", () => {
    const groups = groupHooks([hook("Zeta", "z"), hook("Notification", "n"), hook("Stop", "s")]);
    expect(groups.map((g) => [g.event, g.when === "", g.tools])).toEqual([
      ["Stop", false, false],
      ["Notification", true, false],
      ["Zeta", true, false],
    ]);
  });

  it("has no group without hooks, and knows every event the server names", () => {
    expect(groupHooks([])).toEqual([]);
    expect(HOOK_EVENTS.map((e) => e.event).sort()).toEqual(
      ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PreCompact"].sort(),
    );
  });
});

describe("a hook's tools and file", () => {
  it("names the tools a matcher picks; none, empty or * is every tool", () => {
    expect(matcherText("edit_file|write_file")).toBe("edit_file|write_file");
    expect(matcherText(null)).toBeNull();
    expect(matcherText(undefined)).toBeNull();
    expect(matcherText("  ")).toBeNull();
    expect(matcherText("*")).toBeNull();
  });

  it("finds where a hook's file comes from", () => {
    const files: HookFileInfo[] = [
      { path: "/home/u/.tradewind/hooks.json", hash: "a", source: "user", skipped: [] },
      { path: "/ws/.tradewind/hooks.json", hash: "b", source: "workspace", skipped: [] },
    ];
    expect(fileSource(files, "/ws/.tradewind/hooks.json")).toBe("workspace");
    expect(fileSource(files, "/home/u/.tradewind/hooks.json")).toBe("user");
    expect(fileSource(files, "/elsewhere/hooks.json")).toBeNull();
  });
});
