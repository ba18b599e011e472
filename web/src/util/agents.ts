// What the agent pickers and Settings → Agents show of the server's list of agents: the choices
// (the built-ins when the list is not read yet, the session's own agent even when the list does
// not name it), each agent's mode ceiling in words, and `/agent NAME …` split.
import type { Agent, AgentInfo, AgentList } from "../api/types";

/** One agent a picker offers: its name, the built-in it narrows and what it says of itself. */
export type AgentChoice = Pick<AgentInfo, "name" | "description" | "base" | "source">;

/** The built-ins, as the server describes them: the choices while the list is not read yet. */
export const BUILTIN_AGENTS: readonly AgentChoice[] = [
  { name: "build", description: "Reads, writes and runs commands within the session's mode.", base: "build", source: "builtin" },
  { name: "plan", description: "Read-only: explores and proposes a plan for you to approve.", base: "plan", source: "builtin" },
];

/**
 * The agents to choose from: the server's list (`build`, `plan`, then the custom ones), else the
 * built-ins; `current` (a session's agent) is kept as a choice when the list does not name it (an
 * agent of another workspace, or one whose file is gone), so a picker always shows what it has.
 */
export function agentChoices(list: AgentList | null, current: Agent | null = null): AgentChoice[] {
  const choices: AgentChoice[] = list ? list.data : [...BUILTIN_AGENTS];
  if (current === null || choices.some((a) => a.name === current)) return choices;
  return [...choices, { name: current, description: "", base: "plan", source: "unknown" }];
}

/** An agent as a picker's option shows it: `plan (read-only)`, `code-reviewer (read-only)` for one on `plan`. */
export function agentLabel(a: Pick<AgentChoice, "name" | "base" | "source">): string {
  return a.base === "plan" && a.source !== "unknown" ? `${a.name} (read-only)` : a.name;
}

/** An agent's mode ceiling in words (null: none, the session's mode). */
export function ceilingText(mode: AgentInfo["mode"]): string | null {
  return mode ? `at most ${mode}` : null;
}

/** `/agent NAME rest…`: the agent's name, and what follows it (sent as a prompt once switched). */
export function splitAgentArgs(args: string): { name: string; rest: string } {
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(args.trim());
  return m ? { name: m[1], rest: (m[2] ?? "").trim() } : { name: "", rest: "" };
}
