// What an approval card says at its head: one plain sentence per effect ("The agent wants to run
// a command"), and the server's reasons in the user's words where the server speaks in policy
// terms ("`shell` wants a external effect: mode `ask` asks for external effects").
import type { Effect } from "../api/types";
import { inputSummary } from "./format";

/** What the card asks about, as the event gives it. */
export interface AskFacts {
  tool: string;
  effect: Effect;
  input: unknown;
  scope?: string;
  directory?: string | null;
  reason?: string;
  reasons?: string[];
}

/** The card's head: a sentence, and what it is about (a command, a path, a URL) when known. */
export interface Headline {
  text: string;
  subject: string | null;
}

/** Tools whose input is a command line. */
const COMMAND_TOOLS = new Set(["shell", "run_process", "bg_run", "execute"]);
/** Tools that change one file. */
const FILE_WRITERS = new Set(["write_file", "edit_file"]);
/** Tools that read one file. */
const FILE_READERS = new Set(["read_file"]);

/** Each effect as the thing a mode or the server allows, with its verb ("commands ask first"). */
const EFFECT_WORDS: Record<string, [string, string]> = {
  read: ["reads", "ask"],
  write: ["file edits", "ask"],
  process: ["commands", "ask"],
  external: ["network access", "asks"],
  internal: ["the agent's own bookkeeping", "asks"],
};

/** Whether the call reaches outside the workspace (a directory-scoped ask, or a reason says so). */
function outside(e: AskFacts): boolean {
  if (e.scope === "directory") return true;
  const all = [e.reason ?? "", ...(e.reasons ?? [])].join("\n");
  return /outside the workspace/i.test(all);
}

/** The subject a sentence ends with: the command, path or URL (at most `max` characters). */
function subjectOf(e: AskFacts, max = 160): string | null {
  const s = inputSummary(e.tool, e.input).trim();
  if (!s) return null;
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** One plain sentence for what the call would do, by its effect (and tool, where it says more). */
export function approvalHeadline(e: AskFacts): Headline {
  const subject = subjectOf(e);
  const away = outside(e);
  if (e.tool === "hooks") {
    const file = e.input && typeof e.input === "object" ? (e.input as Record<string, unknown>).file : null;
    return { text: "This workspace's hooks want to run commands", subject: typeof file === "string" ? file : null };
  }
  switch (e.effect) {
    case "process":
      return COMMAND_TOOLS.has(e.tool)
        ? { text: "The agent wants to run a command", subject }
        : { text: `The agent wants to use ${e.tool}, which runs commands`, subject };
    case "write":
      if (FILE_WRITERS.has(e.tool)) {
        return { text: away ? "The agent wants to edit a file outside the workspace" : "The agent wants to edit a file", subject };
      }
      return { text: away ? `The agent wants to change files outside the workspace with ${e.tool}` : `The agent wants to change files with ${e.tool}`, subject };
    case "read":
      if (FILE_READERS.has(e.tool)) {
        return { text: away ? "The agent wants to read a file outside the workspace" : "The agent wants to read a file", subject };
      }
      return { text: away ? "The agent wants to look at files outside the workspace" : `The agent wants to use ${e.tool}, which reads files`, subject };
    case "external":
      if (e.tool === "ssh_agent") return { text: "The agent wants to use your SSH agent", subject: null };
      if (e.tool === "webfetch" || e.tool === "websearch") return { text: "The agent wants to reach the network", subject };
      return { text: `The agent wants to reach the network with ${e.tool}`, subject };
    case "internal":
      return { text: `The agent wants to use ${e.tool}`, subject };
    default:
      return { text: `The agent wants to use ${e.tool}`, subject };
  }
}

/**
 * A reason of the server's in the user's words. The effect rule's reason ("`shell` wants a
 * external effect: mode `ask` asks for external effects", or "…: the server was started without
 * --allow-external") repeats the card's head and names the effect: only why it asks is kept.
 * Other reasons are already written for people and pass as they are.
 */
export function reasonText(reason: string): string {
  // The server's own words since it says them plainly ("in `ask` mode, commands ask first"; "the
  // server was started without --allow-write, so file edits always ask"): a sentence.
  const plain = /^(in `\w+` mode, .+ first|the server was started without --allow-\w+, so .+ always asks?)$/s.exec(reason.trim());
  if (plain) {
    const t = plain[1].replace(/without (--allow-\w+)/, "without `$1`");
    return `${t.charAt(0).toUpperCase()}${t.slice(1)}.`;
  }
  const m = /^`[^`]+` wants an? (\w+) effect: (.+)$/s.exec(reason.trim());
  if (!m) return reason;
  const [, effect, why] = m;
  const [what, verb] = EFFECT_WORDS[effect] ?? [`${effect} actions`, "ask"];
  const mode = /^mode `(\w+)` asks for \w+ effects$/.exec(why.trim());
  if (mode) return `In \`${mode[1]}\` mode, ${what} ${verb} first.`;
  const flag = /^the server was started without (--allow-\w+)$/.exec(why.trim());
  if (flag) return `The server was started without \`${flag[1]}\`, so ${what} always ${verb}.`;
  return why.charAt(0).toUpperCase() + why.slice(1);
}
