// What `/help`, `/cost` and `/status` show in the composer: facts as name and value, in groups,
// made here from what the server answered (nothing is sent to the model).
import type { ContextFill, Mode, PromptCommand, Session, SessionUsage } from "../api/types";
import { tokens, usd } from "./format";

export interface Fact {
  name: string;
  value: string;
}

export interface FactGroup {
  /** null: the panel's only group, under the panel's title. */
  heading: string | null;
  facts: Fact[];
  /** What the group says when it has no fact. */
  empty?: string;
}

/** A command as `/help` lists it. */
export interface HelpEntry {
  label: string;
  description: string;
  template: PromptCommand | null;
}

const MODE_MEANING: Record<Mode, string> = {
  ask: "edits, commands and network ask first",
  auto: "edits in the workspace run; commands and network ask",
  full: "everything the server allows runs without asking",
};

const STATE_MEANING: Record<Session["status"], string> = {
  idle: "idle: nothing is running",
  running: "running: the agent is working",
  waiting: "waiting for you: an approval, a question or a plan",
};

const plural = (n: number, one: string, many = `${one}s`) => `${tokens(n)} ${n === 1 ? one : many}`;

/** `/help`: the built-in commands, then the workspace's templates (and the server's and skills'). */
export function helpFacts(entries: readonly HelpEntry[]): FactGroup[] {
  const line = (e: HelpEntry): Fact => {
    const kind = e.template ? (e.template.skill ? " (skill)" : e.template.builtin ? "" : " (workspace)") : "";
    return { name: `/${e.label}`, value: `${e.description}${kind}` };
  };
  return [
    { heading: "Built-in commands", facts: entries.filter((e) => !e.template).map(line) },
    {
      heading: "Templates",
      facts: entries.filter((e) => e.template).map(line),
      empty: "None: a file .tradewind/commands/NAME.md in the workspace becomes /NAME.",
    },
  ];
}

/** `/cost`: what the session used and spent, its cap, and today's spend of every session. */
export function costFacts(u: SessionUsage): Fact[] {
  const x = u.usage;
  const priced = u.calls - u.unpriced_calls;
  const spent =
    u.calls > 0 && priced === 0
      ? "unknown: no price is known for the models used"
      : `${usd(x.cost_usd)}${u.unpriced_calls > 0 ? `, and ${plural(u.unpriced_calls, "call")} without a known price` : ""}`;
  const facts: Fact[] = [
    { name: "Spent", value: spent },
    { name: "Model calls", value: tokens(u.calls) },
    { name: "Input tokens", value: `${tokens(x.input_tokens)}${x.cached_input_tokens ? ` (${tokens(x.cached_input_tokens)} from the cache)` : ""}` },
    { name: "Output tokens", value: `${tokens(x.output_tokens)}${x.reasoning_tokens ? ` (${tokens(x.reasoning_tokens)} reasoning)` : ""}` },
  ];
  if (x.estimated) facts.push({ name: "Counts", value: "estimated from the text's length: the model's server reported no usage" });
  const capOf = u.spend_cap_source === "session" ? "this session's own" : "the server's";
  const reached = u.spend_cap_usd != null && (x.cost_usd ?? 0) >= u.spend_cap_usd;
  facts.push({
    name: "Spend cap",
    value:
      u.spend_cap_usd == null
        ? "none"
        : `${usd(u.spend_cap_usd)} (${capOf})${reached ? ": reached, the next run stops before its first model call" : ""}`,
  });
  facts.push({
    name: "Today, all sessions",
    value: `${usd(u.day_spent_usd)}${u.day_cap_usd != null ? ` of the daily cap of ${usd(u.day_cap_usd)}` : " (no daily cap)"}`,
  });
  return facts;
}

/** What `/status` is made from. */
export interface StatusInput {
  session: Session;
  /** `provider/model` as the header shows it. */
  model: string;
  /** The session has no model of its own: it follows the default provider's. */
  followsDefault: boolean;
  /** How full the context was at the last model call (null: no call yet, or not known). */
  context: ContextFill | null;
  /** Messages queued behind the active run (null: not known). */
  queued: number | null;
  /** The server's version (null: not known). */
  version: string | null;
}

/** `/status`: what the session runs on and as, where, how full its context is, what it is doing. */
export function statusFacts(s: StatusInput): Fact[] {
  const { session } = s;
  const effort = session.reasoning_effort ? `, reasoning effort ${session.reasoning_effort}` : "";
  const ctx = s.context;
  const context =
    ctx && ctx.context_window > 0
      ? `${tokens(ctx.context_tokens)} of ${tokens(ctx.context_window)} tokens (${Math.round((ctx.context_tokens / ctx.context_window) * 100)} %)`
      : "not known yet: no model call so far";
  const queued = s.queued ? `; ${plural(s.queued, "message")} queued` : "";
  return [
    { name: "Session", value: session.title || "Untitled session" },
    { name: "Model", value: `${s.model}${s.followsDefault ? " (the default)" : ""}${effort}` },
    { name: "Mode", value: `${session.mode}: ${MODE_MEANING[session.mode] ?? ""}` },
    { name: "Agent", value: session.agent },
    { name: "Workspace", value: session.workspace },
    { name: "Context", value: context },
    { name: "State", value: `${STATE_MEANING[session.status] ?? session.status}${queued}` },
    { name: "Server", value: s.version ? `Tradewind ${s.version}` : "version not known" },
  ];
}
