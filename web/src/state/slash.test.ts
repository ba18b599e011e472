import { describe, expect, it, vi } from "vitest";

// slash.ts reaches the router, which reads the page's address when loaded: a bare one here.
vi.hoisted(() => {
  Object.assign(globalThis, { location: { pathname: "/", search: "" }, window: { addEventListener: () => undefined } });
});
import { BUILTIN_AGENTS } from "../util/agents";
import { slashEntries, slashQuery } from "./slash";

const labels = (query: string, agents = BUILTIN_AGENTS) => slashEntries(query, [], agents).map((e) => e.label);

describe("the slash picker's agent commands", () => {
  it("offers /agent and /agents for /agent", () => {
    expect(labels("agent")).toEqual(["agent", "agents"]);
    const agent = slashEntries("agent", [])[0];
    expect(agent.takesArguments).toBe(true);
    expect(slashEntries("agents", [])[0].takesArguments).toBe(false);
  });

  it("offers each agent once `/agent ` is typed, with its description", () => {
    const custom = [...BUILTIN_AGENTS, { name: "code-reviewer", description: "Reviews", base: "plan" as const, source: "workspace" }];
    expect(slashQuery("/agent ")).toBe("agent ");
    expect(labels("agent ", custom)).toEqual(["agent build", "agent plan", "agent code-reviewer"]);
    expect(labels("agent co", custom)).toEqual(["agent code-reviewer"]);
    const e = slashEntries("agent code", [], custom)[0];
    expect([e.description, e.takesArguments, e.template]).toEqual(["Reviews", false, null]);
  });

  it("lists no agent before the space", () => {
    expect(labels("ag").filter((l) => l.includes(" "))).toEqual([]);
  });
});

describe("the slash picker's Settings commands", () => {
  it("offers /skills, /agents and /plugins, none taking arguments", () => {
    expect(labels("pl")).toEqual(["plan", "plugins"]);
    for (const name of ["skills", "agents", "plugins"]) {
      const e = slashEntries(name, [])[0];
      expect([e.label, e.takesArguments, e.template]).toEqual([name, false, null]);
    }
    expect(slashEntries("plugins", [])[0].description).toMatch(/^Open Settings → Plugins/);
  });
});
