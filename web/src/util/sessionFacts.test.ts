// What `/help`, `/cost` and `/status` say, from what the server answered.
import { describe, expect, it } from "vitest";
import type { PromptCommand, Session, SessionUsage } from "../api/types";
import { costFacts, helpFacts, statusFacts } from "./sessionFacts";

const value = (facts: { name: string; value: string }[], name: string) => facts.find((f) => f.name === name)?.value;

const SESSION: Session = {
  id: "S1",
  title: "Status here",
  workspace: "/home/me/project",
  agent: "plan",
  mode: "auto",
  archived: false,
  status: "running",
  last_seq: 3,
  created_at: 1,
  updated_at: 2,
  reasoning_effort: "high",
};

const USAGE: SessionUsage = {
  session_id: "S1",
  calls: 3,
  unpriced_calls: 1,
  usage: { input_tokens: 12_345, cached_input_tokens: 2_000, output_tokens: 678, reasoning_tokens: 100, cost_usd: 0.0421 },
  day_spent_usd: 1.5,
  day_cap_usd: 10,
  spend_cap_usd: 0.04,
  spend_cap_source: "session",
};

describe("/cost", () => {
  it("says what was spent, on how many calls, the tokens, the cap and today's spend", () => {
    const f = costFacts(USAGE);
    expect(value(f, "Spent")).toBe("$0.04, and 1 call without a known price");
    expect(value(f, "Model calls")).toBe("3");
    expect(value(f, "Input tokens")).toBe("12,345 (2,000 from the cache)");
    expect(value(f, "Output tokens")).toBe("678 (100 reasoning)");
    expect(value(f, "Spend cap")).toBe("$0.04 (this session's own): reached, the next run stops before its first model call");
    expect(value(f, "Today, all sessions")).toBe("$1.50 of the daily cap of $10.00");
    expect(value(f, "Counts")).toBeUndefined();
  });

  it("says when no price is known, no cap applies, and the counts are estimated", () => {
    const f = costFacts({
      ...USAGE,
      calls: 2,
      unpriced_calls: 2,
      usage: { input_tokens: 5, output_tokens: 1, cost_usd: null, estimated: true },
      spend_cap_usd: null,
      spend_cap_source: null,
      day_cap_usd: null,
    });
    expect(value(f, "Spent")).toBe("unknown: no price is known for the models used");
    expect(value(f, "Spend cap")).toBe("none");
    expect(value(f, "Today, all sessions")).toBe("$1.50 (no daily cap)");
    expect(value(f, "Counts")).toMatch(/^estimated/);
  });
});

describe("/status", () => {
  const base = { session: SESSION, model: "local/tiny-b", followsDefault: false, context: null, queued: null, version: null };

  it("names the model, mode, agent, workspace, context, state and server", () => {
    const f = statusFacts({ ...base, context: { model: "local/tiny-b", context_tokens: 3_000, context_window: 8_192 }, queued: 2, version: "0.9.1" });
    expect(f.map((x) => x.name)).toEqual(["Session", "Model", "Mode", "Agent", "Workspace", "Context", "State", "Server"]);
    expect(value(f, "Model")).toBe("local/tiny-b, reasoning effort high");
    expect(value(f, "Mode")).toBe("auto: edits in the workspace run; commands and network ask");
    expect(value(f, "Agent")).toBe("plan");
    expect(value(f, "Workspace")).toBe("/home/me/project");
    expect(value(f, "Context")).toBe("3,000 of 8,192 tokens (37 %)");
    expect(value(f, "State")).toBe("running: the agent is working; 2 messages queued");
    expect(value(f, "Server")).toBe("Tradewind 0.9.1");
  });

  it("says what it does not know", () => {
    const f = statusFacts({ ...base, session: { ...SESSION, status: "idle", reasoning_effort: null }, followsDefault: true, queued: 0 });
    expect(value(f, "Model")).toBe("local/tiny-b (the default)");
    expect(value(f, "Context")).toBe("not known yet: no model call so far");
    expect(value(f, "State")).toBe("idle: nothing is running");
    expect(value(f, "Server")).toBe("version not known");
  });
});

describe("/help", () => {
  const template = (name: string, extra: Partial<PromptCommand> = {}): PromptCommand => ({
    name,
    description: `does ${name}`,
    template: "t",
    takes_arguments: false,
    ...extra,
  });

  it("lists the built-in commands, then the templates with where each is from", () => {
    const groups = helpFacts([
      { label: "help", description: "Lists", template: null },
      { label: "init", description: "Writes AGENTS.md", template: template("init", { builtin: true }) },
      { label: "review", description: "Reviews", template: template("review") },
      { label: "pdf", description: "PDFs", template: template("pdf", { skill: true }) },
    ]);
    expect(groups.map((g) => g.heading)).toEqual(["Built-in commands", "Templates"]);
    expect(groups[0].facts).toEqual([{ name: "/help", value: "Lists" }]);
    expect(groups[1].facts.map((f) => `${f.name} ${f.value}`)).toEqual([
      "/init Writes AGENTS.md",
      "/review Reviews (workspace)",
      "/pdf PDFs (skill)",
    ]);
  });

  it("says how to add a template when there is none", () => {
    const [, templates] = helpFacts([{ label: "help", description: "Lists", template: null }]);
    expect(templates.facts).toEqual([]);
    expect(templates.empty).toMatch(/\.tradewind\/commands\/NAME\.md/);
  });
});
