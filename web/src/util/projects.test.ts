import { describe, expect, it } from "vitest";
import type { Session } from "../api/types";
import { groupByWorkspace, workspaceName } from "./projects";

const at = (id: string, workspace: string, updated_at: number): Session => ({
  id,
  title: id,
  workspace,
  agent: "build",
  mode: "ask",
  archived: false,
  status: "idle",
  last_seq: 0,
  created_at: 0,
  updated_at,
});

describe("workspaceName", () => {
  it("is the folder's last part", () => {
    expect(workspaceName("/home/ana/app")).toBe("app");
    expect(workspaceName("/home/ana/app/")).toBe("app");
    expect(workspaceName("/")).toBe("/");
    expect(workspaceName("relative")).toBe("relative");
  });
});

describe("groupByWorkspace", () => {
  it("groups by folder, the one changed last first, each group newest first", () => {
    const list = [at("a", "/w/app", 5), at("b", "/w/lib", 4), at("c", "/w/app/", 3), at("d", "/w/lib", 2)];
    const groups = groupByWorkspace(list);
    expect(groups.map((g) => [g.name, g.sessions.map((s) => s.id)])).toEqual([
      ["app", ["a", "c"]],
      ["lib", ["b", "d"]],
    ]);
    expect(groups[0].workspace).toBe("/w/app");
  });

  it("has no group for no session", () => {
    expect(groupByWorkspace([])).toEqual([]);
  });
});
