// The session export as a file: the JSON document the CLI writes, and the Markdown transcript
// with every tool's output whole.
import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventFrame, EventOf, EventType, Message, Session } from "../api/types";
import { codeSpan, exportFileName, exportJson, exportMarkdown, fenced, sessionDocument } from "./export";

const SESSION: Session = {
  id: "01JD8Q2N4M5K6J7H8G9F0E1D2C",
  title: "Fix the flaky test",
  workspace: "/home/me/project",
  agent: "build",
  mode: "ask",
  archived: false,
  status: "idle",
  last_seq: 9,
  created_at: 1,
  updated_at: 2,
};

type Fields<T extends EventType> = Omit<EventOf<T>, keyof EventEnvelope | "type">;

function ev<T extends EventType>(seq: number, type: T, fields: Fields<T>): EventOf<T> {
  const frame: EventEnvelope & { type: T } = { seq, session: SESSION.id, run: "R1", at: 1_000 + seq, type };
  return { ...frame, ...fields } as EventOf<T>;
}

const LONG_OUTPUT = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
const usage = { input_tokens: 10, output_tokens: 5 };

const EVENTS: EventFrame[] = [
  ev(1, "user_message", { message_id: "M1", text: "  run the tests  " }),
  ev(2, "message_delta", { message_id: "A1", text: "Running" }),
  ev(3, "tool_call", { call_id: "C1", tool: "shell", effect: "process", input: { command: "cargo test" } }),
  ev(4, "tool_result", { call_id: "C1", tool: "shell", ok: true, text: `\n${LONG_OUTPUT}\n\n`, parts: [] }),
  ev(5, "message_complete", {
    message_id: "A1",
    text: "All 40 pass.",
    reasoning: "",
    citations: [{ url: "https://a.example/x" }, { url: "https://b.example/y" }, { url: "https://a.example/x" }],
  }),
  ev(6, "message_complete", { message_id: "A2", text: "  ", reasoning: "thinking only" }),
  ev(7, "run_finished", { run_id: "R1", status: "failed", duration_ms: 5, usage, error: { code: "provider", message: "the model went away" } }),
  ev(8, "session_reverted", { revert_id: "V1", message_id: "M1", runs: ["R1"], files: [] }),
  ev(9, "run_finished", { run_id: "R2", status: "completed", duration_ms: 5, usage }),
];

const MESSAGES: Message[] = [{ id: "M1", role: "user", parts: { text: "run the tests" }, created_at: 5 } as Message];

describe("the JSON export", () => {
  it("is the CLI's document, its keys in the CLI's order, indented by two spaces", () => {
    const doc = sessionDocument(SESSION, EVENTS, MESSAGES);
    expect(Object.keys(doc)).toEqual(["format", "session", "events", "messages"]);
    expect(doc.format).toBe("tradewind-session/1");
    const text = exportJson(doc);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toBe('  "format": "tradewind-session/1",');
    expect(JSON.parse(text)).toEqual({ format: "tradewind-session/1", session: SESSION, events: EVENTS, messages: MESSAGES });
  });
});

describe("the Markdown export", () => {
  const md = exportMarkdown(sessionDocument(SESSION, EVENTS, MESSAGES));

  it("starts with the title, the session and its workspace", () => {
    expect(md.startsWith("# Fix the flaky test\n\nSession `01JD8Q2N4M5K6J7H8G9F0E1D2C` · workspace `/home/me/project`\n")).toBe(true);
  });

  it("has the prompts and answers, trimmed, with each cited page once", () => {
    expect(md).toContain("\n## User\n\nrun the tests\n");
    expect(md).toContain("\n## Assistant\n\nAll 40 pass.\n\nSources:\n- <https://a.example/x>\n- <https://b.example/y>\n");
    // An answer of reasoning alone is no answer.
    expect(md.match(/## Assistant/g)).toHaveLength(1);
  });

  it("quotes the tool call and gives its whole output, never cut to its first lines", () => {
    expect(md).toContain('\n**shell** `{"command":"cargo test"}`\n');
    expect(md).toContain(`\n\`\`\`\n${LONG_OUTPUT}\n\`\`\`\n`);
    expect(md).not.toMatch(/more lines/);
  });

  it("notes a failed run and a revert, not a run that ended well", () => {
    expect(md).toContain("\n> Run failed: the model went away\n");
    expect(md).toContain("\n> The workspace was reverted.\n");
    expect(md.match(/> Run /g)).toHaveLength(1);
  });

  it("keeps an output holding a fence inside a longer fence, whole", () => {
    const out = "before\n```\ninside\n````\nafter";
    const doc = sessionDocument(SESSION, [ev(1, "tool_result", { call_id: "C", tool: "read_file", ok: true, text: out, parts: [] })], []);
    expect(exportMarkdown(doc)).toContain(`\n\`\`\`\`\`\n${out}\n\`\`\`\`\`\n`);
  });

  it("cuts a long tool input to 500 characters and says so", () => {
    const content = "x".repeat(900);
    const doc = sessionDocument(SESSION, [ev(1, "tool_call", { call_id: "C", tool: "write_file", effect: "write", input: { path: "a", content } })], []);
    const line = exportMarkdown(doc).split("\n").find((l) => l.startsWith("**write_file**")) ?? "";
    expect(line).toBe(`**write_file** \`${`{"path":"a","content":"${content}`.slice(0, 500)}…\``);
  });

  it("notes a compaction and a native web search", () => {
    const doc = sessionDocument(
      SESSION,
      [
        ev(1, "context_compacted", {
          trigger: "auto",
          summary: "s",
          messages_summarized: 12,
          messages_kept: 3,
          tokens_before: 1,
          tokens_after: 1,
          context_window: 10,
          usage,
        }),
        ev(2, "web_search", { search_id: "w", provider: "native", query: "rust", status: "completed", results: [{ url: "https://x", title: "x" }] }),
      ],
      [],
    );
    const text = exportMarkdown(doc);
    expect(text).toContain("\n> Conversation compacted (12 older messages summarised).\n");
    expect(text).toContain("\n> Searched the web (native): “rust” — 1 pages\n");
  });
});

describe("fences, code spans and file names", () => {
  it("fences with three backticks, or one more than the longest run inside", () => {
    expect(fenced("plain")).toBe("```\nplain\n```");
    expect(fenced("a ```` b")).toBe("`````\na ```` b\n`````");
  });

  it("quotes backticks in a code span", () => {
    expect(codeSpan("a")).toBe("`a`");
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`a")).toBe("`` `a ``");
  });

  it("names the file after the title and the id", () => {
    expect(exportFileName(SESSION, "json")).toBe("fix-the-flaky-test-01JD8Q2N4M5K6J7H8G9F0E1D2C.json");
    expect(exportFileName({ id: "S1", title: "Ünïcode / path: *x*?" }, "markdown")).toBe("unicode-path-x-S1.md");
    expect(exportFileName({ id: "S1", title: "" }, "markdown")).toBe("session-S1.md");
    expect(exportFileName({ id: "S1", title: "../../etc" }, "json")).toBe("etc-S1.json");
  });
});
