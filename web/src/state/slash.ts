// Slash commands of the composer: the built-in ones (`/compact`, `/plan`, `/build`, `/agent …`,
// `/mode …`, `/model …`, `/goal …`, `/new`, `/clear`, `/undo`, `/redo`, `/search …`, `/skills`,
// `/agents`, `/plugins`, `/export …`, `/diff`) act on the session or open a dialog, panel, picker
// or the session's review; `/help`, `/cost` and `/status` are answered here in a panel over the prompt (nothing
// goes to the model; state/localCommands.ts reads what they show); the server's own prompts
// (`/init`) and the workspace's (`.tradewind/commands/<name>.md`, read with
// `GET /api/sessions/{id}/commands`) are prompt templates sent as an ordinary prompt, `$ARGUMENTS`
// replaced by what follows the name. Any other `/word` is ordinary text (people write /etc/hosts).
import { api } from "../api/client";
import type { Agent, Mode, PromptCommand, Session } from "../api/types";
import { type AgentChoice, splitAgentArgs } from "../util/agents";
import type { ExportFormat } from "../util/export";
import { helpFacts } from "../util/sessionFacts";
import { refreshAgents } from "./agents";
import { exportSession } from "./export";
import { type LocalPanel, checkModel, costPanel, startLike, statusPanel } from "./localCommands";
import { openGoalPanel, openSettingsPanel } from "./panels";
import { effectiveModel, modelLabel, openModelPicker, refreshProviders } from "./providers";
import { startRedo, startRevert } from "./revert";
import { navigate, reviewPath } from "./router";
import { openSearch } from "./search";
import { upsertSession } from "./sessions";
import type { UndoTarget } from "./transcript";

type Builtin =
  | { action: "compact" | "new" | "clear" | "undo" | "redo" | "search" | "model" | "goal" | "skills" | "agents" | "plugins" | "diff" }
  /** Answered here in a panel over the prompt. */
  | { action: "help" | "cost" | "status" }
  | { action: "export"; format: ExportFormat }
  /** Switch to `agent`; null: to the one named after the command (`/agent NAME`). */
  | { action: "agent"; agent: Agent | null }
  | { action: "mode"; mode: Mode };

export interface SlashEntry {
  /** What follows `/`: "compact", "mode auto", a template's name. */
  label: string;
  description: string;
  /** A workspace template (null: built in). */
  template: PromptCommand | null;
  /** Text is expected after it (a template using `$ARGUMENTS`). */
  takesArguments: boolean;
}

const BUILTIN_LIST: { label: string; description: string; builtin: Builtin }[] = [
  { label: "help", description: "List the commands and this workspace's templates here (nothing is sent to the model)", builtin: { action: "help" } },
  { label: "compact", description: "Summarise the older turns to free the context window", builtin: { action: "compact" } },
  { label: "plan", description: "Switch to the plan agent: read-only, it explores and proposes a plan", builtin: { action: "agent", agent: "plan" } },
  { label: "build", description: "Switch to the build agent: it edits files and runs commands", builtin: { action: "agent", agent: "build" } },
  {
    label: "agent",
    description: "Switch to any agent: /agent NAME (build, plan or a custom agent); text after the name is sent to it",
    builtin: { action: "agent", agent: null },
  },
  { label: "mode ask", description: "Permissions: edits, commands and network ask first", builtin: { action: "mode", mode: "ask" } },
  { label: "mode auto", description: "Permissions: edits in the workspace run; commands and network ask", builtin: { action: "mode", mode: "auto" } },
  { label: "mode full", description: "Permissions: everything the server allows runs without asking", builtin: { action: "mode", mode: "full" } },
  {
    label: "model",
    description: "This session's model: alone it opens the picker; /model NAME or /model PROVIDER/NAME sets it",
    builtin: { action: "model" },
  },
  {
    label: "goal",
    description: "Give the agent a goal to work towards, turn after turn: /goal OBJECTIVE sets it; alone it opens the goal panel",
    builtin: { action: "goal" },
  },
  { label: "new", description: "Start a new session in this workspace, with the same agent, permissions and model", builtin: { action: "new" } },
  {
    label: "clear",
    description: "Start afresh: a new session with this one's workspace, model, permissions and agent; this one stays in the list",
    builtin: { action: "clear" },
  },
  { label: "cost", description: "What this session has used and spent: tokens, cost, its spend cap", builtin: { action: "cost" } },
  {
    label: "status",
    description: "This session's model, permissions, agent, workspace, context use and run state, and the server's version",
    builtin: { action: "status" },
  },
  { label: "diff", description: "Review everything this session changed, as one diff, with line comments", builtin: { action: "diff" } },
  {
    label: "export json",
    description: "Download this session as JSON, as `tradewind sessions export` writes it (`sessions import` takes it back)",
    builtin: { action: "export", format: "json" },
  },
  {
    label: "export markdown",
    description: "Download this session as Markdown: prompts, answers, tool calls and their whole output",
    builtin: { action: "export", format: "markdown" },
  },
  { label: "undo", description: "Revert the files to before your last message and take that turn back", builtin: { action: "undo" } },
  { label: "redo", description: "Undo the last revert: the files and the turns come back", builtin: { action: "redo" } },
  { label: "search", description: "Search every session for the words that follow", builtin: { action: "search" } },
  {
    label: "skills",
    description: "Open Settings → Skills: the Agent Skills the agent sees, turn them on or off, trust this workspace's",
    builtin: { action: "skills" },
  },
  {
    label: "agents",
    description: "Open Settings → Agents: the agents a session can run as, trust this workspace's",
    builtin: { action: "agents" },
  },
  {
    label: "plugins",
    description: "Open Settings → Plugins: the installed plugins and what they bundle, turn them on or off",
    builtin: { action: "plugins" },
  },
];
const BUILTINS: (SlashEntry & { builtin: Builtin })[] = BUILTIN_LIST.map((b) => ({
  ...b,
  template: null,
  takesArguments: b.builtin.action === "search" || (b.builtin.action === "agent" && b.builtin.agent === null),
}));

/** Names a workspace template cannot take: the built-in command wins. */
const BUILTIN_NAMES = new Set(BUILTINS.map((b) => b.label.split(" ")[0]));

/**
 * What the picker filters by: the text after `/` while the whole prompt is one command name (and
 * at most one word after it, for `/mode auto`); null otherwise.
 */
export function slashQuery(text: string): string | null {
  const m = /^\/([\w-]*(?: [\w-]*)?)$/.exec(text);
  return m ? m[1] : null;
}

/**
 * The picker's entries for `query`: those starting with it first, then those containing it. Once
 * `agent ` is typed, each of `agents` is an entry (`agent code-reviewer`) with its description.
 */
export function slashEntries(query: string, templates: PromptCommand[], agents: readonly AgentChoice[] = []): SlashEntry[] {
  const own: SlashEntry[] = templates
    .filter((t) => !BUILTIN_NAMES.has(t.name))
    .map((t) => ({ label: t.name, description: t.description, template: t, takesArguments: t.takes_arguments }));
  const named: SlashEntry[] = query.startsWith("agent ")
    ? agents.map((a) => ({ label: `agent ${a.name}`, description: a.description, template: null, takesArguments: false }))
    : [];
  const all: SlashEntry[] = [...BUILTINS, ...named, ...own];
  const q = query.toLowerCase();
  const starts = all.filter((e) => e.label.startsWith(q));
  const within = q.includes(" ") ? [] : all.filter((e) => !e.label.startsWith(q) && e.label.includes(q));
  return [...starts, ...within];
}

/** The template's text for `args`: `$ARGUMENTS` replaced, or the args after it when it has none. */
export function expandTemplate(t: PromptCommand, args: string): string {
  if (t.template.includes("$ARGUMENTS")) return t.template.split("$ARGUMENTS").join(args).trim();
  return args ? `${t.template.trim()}\n\n${args}` : t.template.trim();
}

/** What a prompt starting with `/` comes to. */
export interface SlashOutcome {
  /** What was done, in a few words (null: nothing was done, `send` is everything). */
  done: string | null;
  /** The prompt to send now (null: none). */
  send: string | null;
  /** What a command answered here shows over the prompt (absent: nothing). */
  panel?: LocalPanel;
}

const AGENT_DONE: Record<string, string> = {
  plan: "Switched to the plan agent (read-only).",
  build: "Switched to the build agent.",
};

/** What the composer knows that a command needs. */
export interface SlashContext {
  /** The message `/undo` reverts to (null: none in the transcript). */
  undoTarget: () => UndoTarget | null;
  /** The workspace's templates (what `/help` lists with the built-in commands). */
  templates: () => Promise<PromptCommand[]>;
}

/** What a built-in command did: a few words, or a panel of its own. */
type Done = string | null | { panel: LocalPanel };

async function runBuiltin(session: Session, b: Builtin, args: string, ctx: SlashContext): Promise<Done> {
  switch (b.action) {
    case "compact":
      // The compaction run shows in the transcript: nothing more to say here.
      await api.compact(session.id);
      return null;
    case "agent":
      // `/agent NAME` is read by agentCommand, which also sends what follows the name.
      return switchAgent(session, b.agent ?? args);
    case "mode":
      upsertSession(await api.patchSession(session.id, { mode: b.mode }));
      return `Permissions set to ${b.mode}.`;
    case "new":
      await startLike(session);
      return "New session started.";
    case "clear":
      await startLike(session);
      return "Cleared: a new session on the same model, permissions and agent; the old one is in the list.";
    case "help":
      return { panel: { kind: "facts", title: "Commands", groups: helpFacts(slashEntries("", await ctx.templates())) } };
    case "cost":
      return { panel: await costPanel(session) };
    case "status":
      return { panel: await statusPanel(session) };
    case "diff":
      navigate(reviewPath(session.id));
      return null;
    case "export":
      return `Downloaded ${await exportSession(session.id, b.format)}.`;
    case "undo": {
      // The dialog that asks says the rest.
      const target = ctx.undoTarget();
      if (!target) throw new Error("Nothing to undo: there is no message to the build agent here to revert to.");
      startRevert(session.id, target);
      return null;
    }
    case "redo":
      startRedo(session.id);
      return null;
    case "search":
      openSearch(args);
      return null;
    case "model":
      return setModel(session, args);
    case "goal":
      return setGoal(session, args);
    case "skills":
    case "agents":
    case "plugins":
      // The panel takes the focus: nothing to say here.
      openSettingsPanel(b.action);
      return null;
  }
}

/** Switch the session to `agent`: the server refuses one it cannot see (422, naming those there are). */
async function switchAgent(session: Session, agent: Agent): Promise<string> {
  upsertSession(await api.patchSession(session.id, { agent }));
  return AGENT_DONE[agent] ?? `Switched to the ${agent} agent.`;
}

/**
 * `/agent NAME [text]`: switch to that agent, then send the text; alone, say which agents there
 * are (those of the server's workspace) and which one the session runs as.
 */
async function agentCommand(session: Session, args: string): Promise<SlashOutcome> {
  const { name, rest } = splitAgentArgs(args);
  if (!name) {
    const list = await refreshAgents();
    const names = list.data.map((a) => a.name).join(", ");
    return { done: `Agents: ${names}. This session runs as ${session.agent}; /agent NAME switches.`, send: null };
  }
  return { done: await switchAgent(session, name), send: rest || null };
}

/**
 * `/model`: alone, the header's picker opens; `NAME` sets the model on the provider the session
 * runs on now; `PROVIDER/NAME`, where PROVIDER is a configured provider's id, sets both (any other
 * `/` is part of the name, as in `meta-llama/Llama-3.1-8B`).
 */
async function setModel(session: Session, args: string): Promise<string | null> {
  if (!args) {
    openModelPicker(session.id);
    return null;
  }
  const list = await refreshProviders();
  const cut = args.indexOf("/");
  const named = cut > 0 ? list.data.find((p) => p.id === args.slice(0, cut)) : undefined;
  const provider = named ? named.id : effectiveModel(session, list).provider;
  const model = (named ? args.slice(cut + 1) : args).trim();
  if (!model) throw new Error(`Give a model name after ${args}, e.g. /model ${args}${named?.model ?? "NAME"}.`);
  // A model the provider does not list is refused here; an unreadable list only warns.
  const warning = await checkModel(provider, model);
  const s = await api.patchSession(session.id, provider ? { provider, model } : { model });
  upsertSession(s);
  const done = `Model: ${modelLabel(effectiveModel(s, list))}`;
  return warning ? `${done}. Warning: ${warning}.` : done;
}

/**
 * `/goal`: alone, the session's goal panel opens (to set one, or to see and change the one it
 * has); `OBJECTIVE` gives the session that goal (the server's refusal, e.g. a live goal already,
 * is thrown in its words). The panel shows it once the `goal_updated` event arrives.
 */
async function setGoal(session: Session, args: string): Promise<string | null> {
  if (!args) {
    openGoalPanel(session.id);
    return null;
  }
  await api.setGoal(session.id, { objective: args });
  openGoalPanel(session.id, false);
  return "Goal set: the agent works towards it, turn after turn.";
}

/**
 * Act on a prompt: a built-in command runs (an error is thrown with a plain message), a
 * template is expanded, anything else is sent as it is; `/help`, `/cost` and `/status` come
 * back with a panel to show. `ctx.templates` reads the workspace's templates.
 */
export async function resolveSlash(session: Session, text: string, ctx: SlashContext): Promise<SlashOutcome> {
  const m = /^\/([\w-]+)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!m) return { done: null, send: text };
  const name = m[1].toLowerCase();
  const args = (m[2] ?? "").trim();
  const run = async (b: Builtin, after = "", send: string | null = null): Promise<SlashOutcome> => {
    const done = await runBuiltin(session, b, after, ctx);
    return typeof done === "object" && done !== null ? { done: null, send, panel: done.panel } : { done, send };
  };
  if (name === "model") return { done: await setModel(session, args), send: null };
  if (name === "goal") return { done: await setGoal(session, args), send: null };
  if (name === "agent") return agentCommand(session, args);
  if (name === "mode" || name === "export") {
    const b = BUILTINS.find((x) => x.label === subcommand(name, args));
    if (!b) throw new Error(name === "mode" ? "Use /mode ask, /mode auto or /mode full." : "Use /export json or /export markdown.");
    return run(b.builtin);
  }
  const b = BUILTINS.find((x) => x.label === name);
  if (b) {
    if (b.builtin.action === "search") return run(b.builtin, args);
    // `/plan <text>` switches agent and sends the text; the others take nothing after them.
    if (args && b.builtin.action !== "agent") throw new Error(`/${name} takes nothing after it.`);
    return run(b.builtin, "", args || null);
  }
  const t = (await ctx.templates()).find((x) => x.name === name);
  if (t) return { done: null, send: expandTemplate(t, args) };
  return { done: null, send: text };
}

/**
 * The entry `/mode …` or `/export …` names: `/export` alone is JSON (as the CLI's default), `md`
 * stands for `markdown`.
 */
function subcommand(name: string, args: string): string {
  const arg = args.toLowerCase();
  if (name === "export") return `export ${arg === "" ? "json" : arg === "md" ? "markdown" : arg}`;
  return `${name} ${arg}`;
}
