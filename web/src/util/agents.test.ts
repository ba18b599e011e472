import { describe, expect, it } from "vitest";
import type { AgentInfo, AgentList } from "../api/types";
import { BUILTIN_AGENTS, agentChoices, agentLabel, ceilingText, splitAgentArgs } from "./agents";

const agent = (name: string, over: Partial<AgentInfo> = {}): AgentInfo => ({
  name,
  description: `${name} does things`,
  source: "user",
  file: `/home/u/.tradewind/agents/${name}.md`,
  base: "build",
  tools: null,
  commands: [],
  mode: null,
  model: null,
  reasoning: null,
  skipped: [],
  ...over,
});

const list = (...custom: AgentInfo[]): AgentList => ({
  data: [agent("build", { source: "builtin", file: null }), agent("plan", { source: "builtin", base: "plan", file: null }), ...custom],
  skipped: [],
  untrusted: false,
  workspace_hash: null,
});

describe("the agents a picker offers", () => {
  it("are the built-ins until the list is read", () => {
    expect(agentChoices(null).map((a) => a.name)).toEqual(["build", "plan"]);
    expect(agentChoices(null, "plan")).toEqual(BUILTIN_AGENTS);
  });

  it("are the server's list, in its order", () => {
    const l = list(agent("code-reviewer", { base: "plan" }), agent("docs"));
    expect(agentChoices(l, "docs").map((a) => a.name)).toEqual(["build", "plan", "code-reviewer", "docs"]);
  });

  it("keep the session's own agent when the list does not name it", () => {
    const choices = agentChoices(list(), "gone-agent");
    expect(choices.map((a) => a.name)).toEqual(["build", "plan", "gone-agent"]);
    expect(agentLabel(choices[2])).toBe("gone-agent");
  });

  it("say which are read-only", () => {
    expect(agentLabel({ name: "plan", base: "plan", source: "builtin" })).toBe("plan (read-only)");
    expect(agentLabel({ name: "code-reviewer", base: "plan", source: "workspace" })).toBe("code-reviewer (read-only)");
    expect(agentLabel({ name: "docs", base: "build", source: "user" })).toBe("docs");
  });
});

describe("an agent in words", () => {
  it("has a mode ceiling or none", () => {
    expect(ceilingText("auto")).toBe("at most auto");
    expect(ceilingText(null)).toBeNull();
    expect(ceilingText(undefined)).toBeNull();
  });
});

describe("/agent's arguments", () => {
  it("are the name, then the text to send", () => {
    expect(splitAgentArgs("code-reviewer")).toEqual({ name: "code-reviewer", rest: "" });
    expect(splitAgentArgs("  code-reviewer  look at\\nthe diff ")).toEqual({ name: "code-reviewer", rest: "look at\\nthe diff" });
    expect(splitAgentArgs("")).toEqual({ name: "", rest: "" });
  });
});
