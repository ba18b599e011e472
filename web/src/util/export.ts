// A session as a file: the JSON document `tradewind sessions export --format json` writes (and
// `tradewind sessions import` / `POST /api/sessions/import` take back), and a readable Markdown
// transcript of it. The Markdown follows `tradewind sessions show` (headless.rs `markdown`), with
// one difference: each tool's output is there whole, never cut to its first lines.
import type { EventFrame, Message, Session, SessionExport } from "../api/types";

/** What `format` says an export is. */
export const EXPORT_FORMAT = "tradewind-session/1";

/** What the file holds: the session as `GET /api/sessions/{id}` gives it, every event and every message. */
export interface SessionDocument {
  format: typeof EXPORT_FORMAT;
  session: Session;
  events: EventFrame[];
  messages: Message[];
}

export type ExportFormat = "json" | "markdown";

/** The document, its keys in the order the CLI writes them. */
export function sessionDocument(session: Session, events: EventFrame[], messages: Message[]): SessionDocument {
  const doc: SessionDocument = { format: EXPORT_FORMAT, session, events, messages };
  // What import takes: tsc fails here if the two drift apart.
  doc satisfies SessionExport;
  return doc;
}

/** The JSON file's text: indented by two spaces, ending in a newline, as the CLI writes it. */
export function exportJson(doc: SessionDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** How much of a tool call's arguments the transcript quotes (the CLI's cut). */
const INPUT_CHARS = 500;

/** The readable transcript: prompts, answers, tool calls and their whole output, notes of the rest. */
export function exportMarkdown(doc: SessionDocument): string {
  const s = doc.session;
  let md = `# ${s.title || "Session"}\n\nSession \`${s.id}\` · workspace \`${s.workspace}\`\n`;
  for (const e of doc.events) md += eventMarkdown(e);
  return md;
}

/** A field of an event as trimmed text ("" when it is not a string). */
function text(e: EventFrame, key: string): string {
  const v = (e as Record<string, unknown>)[key];
  return typeof v === "string" ? v.trim() : "";
}

function eventMarkdown(e: EventFrame): string {
  switch (e.type) {
    case "user_message":
      return `\n## User\n\n${text(e, "text")}\n`;
    case "message_complete": {
      const answer = text(e, "text");
      if (!answer) return "";
      const urls = citedUrls(e);
      const sources = urls.length > 0 ? `\nSources:\n${urls.map((u) => `- <${u}>\n`).join("")}` : "";
      return `\n## Assistant\n\n${answer}\n${sources}`;
    }
    case "web_search": {
      const results = (e as { results?: unknown }).results;
      const n = Array.isArray(results) ? results.length : 0;
      return `\n> Searched the web (${text(e, "provider")}): “${text(e, "query")}” — ${n} pages\n`;
    }
    case "tool_call": {
      const input = JSON.stringify((e as { input?: unknown }).input ?? null);
      const quoted = input.length > INPUT_CHARS ? `${input.slice(0, INPUT_CHARS)}…` : input;
      return `\n**${text(e, "tool")}** ${codeSpan(quoted)}\n`;
    }
    case "tool_result":
      return `\n${fenced(outputText(e))}\n`;
    case "context_compacted":
      return `\n> Conversation compacted (${String((e as { messages_summarized?: unknown }).messages_summarized)} older messages summarised).\n`;
    case "session_reverted":
      return "\n> The workspace was reverted.\n";
    case "run_finished": {
      const error = (e as { error?: unknown }).error;
      if (typeof error !== "object" || error === null) return "";
      const message = (error as { message?: unknown }).message;
      return `\n> Run ${text(e, "status")}: ${typeof message === "string" ? message : ""}\n`;
    }
    default:
      return "";
  }
}

/** A tool's output whole: blank lines around it dropped, the indentation of its first line kept. */
function outputText(e: EventFrame): string {
  const v = (e as { text?: unknown }).text;
  return typeof v === "string" ? v.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd() : "";
}

/** The pages an answer cites, each once, in the order it cites them. */
function citedUrls(e: EventFrame): string[] {
  const cited = (e as { citations?: unknown }).citations;
  const urls: string[] = [];
  if (!Array.isArray(cited)) return urls;
  for (const c of cited) {
    const url = typeof c === "object" && c !== null ? (c as { url?: unknown }).url : undefined;
    if (typeof url === "string" && !urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** The longest run of backticks in `s`. */
function longestTicks(s: string): number {
  let most = 0;
  for (const m of s.matchAll(/`+/g)) most = Math.max(most, m[0].length);
  return most;
}

/** `s` as a fenced block whose fence no line of it can close (one backtick longer than any run in it). */
export function fenced(s: string): string {
  const fence = "`".repeat(Math.max(3, longestTicks(s) + 1));
  return `${fence}\n${s}\n${fence}`;
}

/** `s` as inline code, whatever backticks it holds. */
export function codeSpan(s: string): string {
  const ticks = "`".repeat(longestTicks(s) + 1);
  const pad = s.startsWith("`") || s.endsWith("`") ? " " : "";
  return `${ticks}${pad}${s}${pad}${ticks}`;
}

/** The file's name: the title made safe for any file system, the session's id, the format's extension. */
export function exportFileName(session: Pick<Session, "id" | "title">, format: ExportFormat): string {
  const slug = session.title
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^\w.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 60)
    .replace(/[-.]+$/, "")
    .toLowerCase();
  const base = slug ? `${slug}-${session.id}` : `session-${session.id}`;
  return `${base}.${format === "json" ? "json" : "md"}`;
}
