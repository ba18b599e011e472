// The transcript reducer, driven without a DOM, a network or a timer: frames in, state out.
import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventFrame, EventOf, EventType, Goal, ReviewComment, Session, Task, UnknownEvent } from "../api/types";
import type { Item } from "./items";
import { emptyState, mergeComments, mergeTasks, rebuild, reduce, reduceBatch, takeChanges, updateTask, type TranscriptState } from "./reduce";

const SESSION = "S1";

/** The fields of an event of type `T` other than its envelope and type. */
type Fields<T extends EventType> = Omit<EventOf<T>, keyof EventEnvelope | "type">;

/** An event frame of type `T` at `seq` (its run `R1` unless `run` says otherwise). */
function ev<T extends EventType>(seq: number, type: T, fields: Fields<T>, run: string | null = "R1"): EventOf<T> {
  const frame: EventEnvelope & { type: T } = { seq, session: SESSION, run, at: 1_000 + seq, type };
  // The spread of a generic's fields is not narrowed back to the union member by tsc.
  return { ...frame, ...fields } as EventOf<T>;
}

const started = (seq: number, run = "R1", trigger: EventOf<"run_started">["trigger"] = "prompt") =>
  ev(seq, "run_started", { run_id: run, agent: "build", mode: "ask", trigger }, run);
const prompt = (seq: number, text: string, run = "R1", messageId = `M${seq}`) =>
  ev(seq, "user_message", { message_id: messageId, text }, run);
const delta = (seq: number, text: string, messageId = "A1") => ev(seq, "message_delta", { message_id: messageId, text });
const usage = { input_tokens: 10, output_tokens: 5 };
const finished = (seq: number, run = "R1", status: EventOf<"run_finished">["status"] = "completed") =>
  ev(seq, "run_finished", { run_id: run, status, duration_ms: 1200, usage }, run);
const toolCall = (seq: number, callId = "C1", tool = "shell") =>
  ev(seq, "tool_call", { call_id: callId, tool, effect: "process", input: { command: "ls" } });
const toolResult = (seq: number, callId = "C1", tool = "shell", text = "a\nb") =>
  ev(seq, "tool_result", { call_id: callId, tool, ok: true, text, parts: [] });

function applyAll(frames: EventFrame[], s: TranscriptState = emptyState(SESSION)): TranscriptState {
  for (const f of frames) s = reduce(s, f);
  return s;
}

const kinds = (s: TranscriptState) => s.items.map((it) => it.kind);
function only<K extends Item["kind"]>(s: TranscriptState, kind: K): Extract<Item, { kind: K }> {
  const found = s.items.filter((it): it is Extract<Item, { kind: K }> => it.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

const session = (over: Partial<Session> = {}): Session => ({
  id: SESSION,
  agent: "build",
  archived: false,
  created_at: 1,
  last_seq: 0,
  mode: "ask",
  status: "idle",
  title: "A session",
  updated_at: 2,
  workspace: "/w",
  ...over,
});

const task = (id: string, status: Task["status"], createdAt = 1): Task => ({
  id,
  status,
  command: "sleep 1",
  created_at: createdAt,
  cwd: "/w",
  label: id,
  output_bytes: 0,
  session_id: SESSION,
  timeout_ms: 60_000,
});

const goal = (usedTurns: number): Goal => ({
  id: "G1",
  session: SESSION,
  objective: "ship it",
  status: "active",
  blocked_repeats: 0,
  blocked_streak: 0,
  budget: { minutes: 60, tokens: 1e6, turns: 10, used_minutes: 0, used_tokens: 0, used_turns: usedTurns },
  created_at: 1,
  updated_at: 1,
  reports: [],
});

describe("each event kind", () => {
  it("a provider's own web search is an item in its place, and the answer keeps its citations", () => {
    const s = applyAll([
      started(1),
      prompt(2, "what is new in tokio?"),
      ev(3, "web_search", {
        search_id: "ws_1",
        provider: "openai",
        query: "tokio release",
        status: "completed",
        results: [{ url: "https://github.com/tokio-rs/tokio/releases", title: "Releases" }],
      }),
      delta(4, "Tokio 1.54"),
      ev(5, "message_complete", {
        message_id: "A1",
        text: "Tokio 1.54 is out.",
        reasoning: "",
        citations: [{ url: "https://github.com/tokio-rs/tokio/releases", title: "Releases", cited_text: "v1.54" }],
      }),
      finished(6),
    ]);
    expect(kinds(s)).toEqual(["run_start", "user", "web_search", "assistant", "run_end"]);
    const search = only(s, "web_search");
    expect(search.query).toBe("tokio release");
    expect(search.results).toHaveLength(1);
    expect(search.error).toBeNull();
    expect(only(s, "assistant").citations[0].cited_text).toBe("v1.54");
  });

  it("user_message adds the prompt, editable unless internal or a !command", () => {
    const s = applyAll([started(1), prompt(2, "hello"), prompt(3, "!ls")]);
    const users = s.items.filter((it) => it.kind === "user");
    expect(users.map((u) => [u.text, u.editable, u.internal, u.agent])).toEqual([
      ["hello", true, null, "build"],
      ["!ls", false, null, "build"],
    ]);
    expect(s.runs.get("R1")?.prompt).toBe("!ls");
    expect(s.seqKeys.get(2)).toBe("u:M2");
  });

  it("user_message of an internal run (its origin, else its run's trigger) is not editable", () => {
    const s = applyAll([started(1, "R1", "resume"), prompt(2, "go on")]);
    const u = only(s, "user");
    expect(u.internal).toBe("resume");
    expect(u.editable).toBe(false);
    expect(s.runs.get("R1")?.prompt).toBeNull();
  });

  it("run_started marks the run active and supersedes the earlier run ends", () => {
    let s = applyAll([started(1), finished(2)]);
    const end = only(s, "run_end");
    expect(end.runState.superseded).toBe(false);
    expect(s.activeRunId).toBeNull();
    s = applyAll([started(3, "R2")], s);
    expect(s.activeRunId).toBe("R2");
    expect(end.runState.superseded).toBe(true);
    expect(s.runMarks).toBe(3);
    expect(kinds(s)).toEqual(["run_start", "run_end", "run_start"]);
  });

  it("message_delta and reasoning_delta build one reply; message_complete settles it", () => {
    let s = applyAll([started(1), delta(2, "Hel"), ev(3, "reasoning_delta", { message_id: "A1", text: "think" }), delta(4, "lo")]);
    const m = only(s, "assistant");
    expect([m.text, m.reasoning, m.complete]).toEqual(["Hello", "think", false]);
    s = applyAll([ev(5, "message_complete", { message_id: "A1", text: "Hello!", reasoning: "" })], s);
    expect([m.text, m.reasoning, m.complete]).toEqual(["Hello!", "think", true]);
    expect(s.seqKeys.get(5)).toBe("m:A1");
  });

  it("tool_call, policy_decision and tool_result fill one tool item", () => {
    const s = applyAll([
      started(1),
      toolCall(2),
      ev(3, "policy_decision", { call_id: "C1", decision: "allow", reason: "rule", key: "shell:ls", tool: "shell", effect: "process" }),
      toolResult(4),
    ]);
    const t = only(s, "tool");
    expect([t.tool, t.effect, t.input, t.decision, t.decisionReason]).toEqual(["shell", "process", { command: "ls" }, "allow", "rule"]);
    expect(t.result).toEqual({ ok: true, text: "a\nb", parts: [] });
    expect(t.v).toBe(3);
  });

  it("tool_output builds the running command's output, stdout and stderr in the order they came; its result replaces it", () => {
    const out = (seq: number, stream: "stdout" | "stderr", text: string, callId = "C1") => ev(seq, "tool_output", { call_id: callId, stream, text });
    let s = applyAll([started(1), toolCall(2)]);
    takeChanges(s);
    s = applyAll([out(3, "stdout", "first\n"), out(4, "stderr", "warn\n"), out(5, "stdout", "second\n")], s);
    const t = only(s, "tool");
    expect(t.output?.chunks.map((c) => [c.stream, c.text])).toEqual([
      ["stdout", "first\n"],
      ["stderr", "warn\n"],
      ["stdout", "second\n"],
    ]);
    expect(t.v).toBe(4);
    // Text only, to a tool item already shown: only that item changed, nothing was added.
    const changes = takeChanges(s);
    expect([changes.added, new Set(changes.touched)]).toEqual([false, new Set([t])]);
    s = applyAll([toolResult(6), out(7, "stdout", "late\n")], s);
    expect(t.output).toBeNull();
    expect(t.result?.ok).toBe(true);
  });

  it("tool_output whose call is in a page not read yet makes the card; its result names the tool", () => {
    const s = applyAll([ev(5, "tool_output", { call_id: "C9", stream: "stdout", text: "building\n" })]);
    const t = only(s, "tool");
    expect([t.tool, t.output?.size]).toEqual(["", 9]);
    expect(s.activeRunId).toBe("R1");
    applyAll([toolResult(6, "C9", "shell")], s);
    expect(t.tool).toBe("shell");
  });

  it("a subagent tool's result moves the subagent marks", () => {
    const s = applyAll([started(1), toolCall(2, "C1", "task"), toolResult(3, "C1", "task", "{}")]);
    expect(s.subagentMarks).toBe(1);
  });

  it("approval_requested waits for the user and asks for attention; approval_decided settles it", () => {
    let s = applyAll([started(1), toolCall(2)]);
    takeChanges(s);
    const asked = ev(3, "approval_requested", {
      approval_id: "P1",
      call_id: "C1",
      effect: "process",
      input: { command: "ls" },
      reason: "runs a process",
      scope: "effect",
      tool: "shell",
      warnings: [],
    });
    s = reduce(s, asked);
    expect(takeChanges(s).attention).toEqual([asked]);
    expect(s.tools.get("C1")?.approvalId).toBe("P1");
    const a = only(s, "approval").approval;
    expect(a.decision).toBeNull();
    s = reduce(s, ev(4, "approval_decided", { approval_id: "P1", decision: "once" }));
    expect(a.decision).toBe("once");
    // Its call's card stops waiting: allowed, it runs.
    expect(s.tools.get("C1")?.approval).toBe("once");
  });

  it("approval_decided keeps a denial's reason", () => {
    let s = applyAll([
      started(1),
      toolCall(2),
      ev(3, "approval_requested", {
        approval_id: "P1",
        call_id: "C1",
        effect: "process",
        input: { command: "psql prod" },
        reason: "runs a process",
        scope: "effect",
        tool: "shell",
        warnings: [],
        session_keeps: ["every command (process)"],
      }),
    ]);
    const a = only(s, "approval").approval;
    expect(a.reason).toBeNull();
    s = reduce(s, ev(4, "approval_decided", { approval_id: "P1", decision: "deny", reason: "Use staging" }));
    expect([a.decision, a.reason]).toEqual(["deny", "Use staging"]);
  });

  it("a message steered into a run is recorded in that run, and its queued run ends without a trace", () => {
    const s = applyAll([
      started(1),
      prompt(2, "fix the tests"),
      toolCall(3),
      toolResult(4),
      ev(5, "user_message", { message_id: "M5", text: "look at the README", steered_from: "R2" }),
      ev(6, "run_finished", { run_id: "R2", status: "completed", reason: "steered", duration_ms: 0, usage }, "R2"),
    ]);
    const said = s.items.filter((it) => it.kind === "user");
    expect(said.map((u) => [u.text, u.run, u.steeredFrom])).toEqual([
      ["fix the tests", "R1", null],
      ["look at the README", "R1", "R2"],
    ]);
    // R1 still works; Retry would send its own prompt; R2 never ran, so it shows no end.
    expect(s.activeRunId).toBe("R1");
    expect(s.runs.get("R1")?.prompt).toBe("fix the tests");
    expect(kinds(s)).not.toContain("run_end");
    expect(s.runMarks).toBe(2);
  });

  it("question_asked and question_answered", () => {
    let s = applyAll([
      started(1),
      ev(2, "question_asked", { call_id: "C1", question_id: "Q1", questions: [{ question: "Which?", options: [{ label: "A" }] }] }),
    ]);
    expect(takeChanges(s).attention.map((e) => e.type)).toEqual(["question_asked"]);
    const q = only(s, "question").question;
    s = reduce(s, ev(3, "question_answered", { question_id: "Q1", answers: [["A"]] }));
    expect(q.answers).toEqual([["A"]]);
    expect(q.reason).toBeNull();
  });

  it("a prompt nobody could answer because the server restarted says so", () => {
    let s = applyAll([
      started(1),
      ev(2, "question_asked", { call_id: "C1", question_id: "Q1", questions: [{ question: "Which?", options: [{ label: "A" }] }] }),
    ]);
    const q = only(s, "question").question;
    s = reduce(s, ev(3, "question_answered", { question_id: "Q1", answers: [null], reason: "not answered — the server restarted" }));
    expect([q.answers, q.reason]).toEqual([[null], "not answered — the server restarted"]);
  });

  it("plan_proposed revisions form one series; plan_decided records the answer", () => {
    const plan = (seq: number, id: string, revision: number) =>
      ev(seq, "plan_proposed", {
        plan_id: id,
        artifact_id: `art-${id}`,
        call_id: `C${seq}`,
        diagrams: [],
        dropped: [],
        files: [],
        hash: `h${revision}`,
        plan: `# Plan ${revision}`,
        removed: [],
        revision,
      });
    let s = applyAll([started(1), plan(2, "PL1", 1), plan(3, "PL2", 2)]);
    const first = s.plans.get("PL1");
    expect(first?.revisions.map((p) => p.id)).toEqual(["PL1", "PL2"]);
    s = reduce(s, ev(4, "plan_decided", { plan_id: "PL2", decision: "feedback", feedback: "shorter" }));
    expect([s.plans.get("PL2")?.decision, s.plans.get("PL2")?.feedback]).toEqual(["feedback", "shorter"]);
  });

  it("child_pending keeps the latest word on each subagent prompt; only a pending one asks for attention", () => {
    const child = (seq: number, status: EventOf<"child_pending">["status"]) =>
      ev(seq, "child_pending", { id: "X1", child_session: "S2", kind: "approval", status, summary: "ls" }, null);
    let s = applyAll([child(1, "pending")]);
    expect(takeChanges(s).attention).toHaveLength(1);
    s = reduce(s, child(2, "answered"));
    expect(takeChanges(s).attention).toHaveLength(0);
    expect(s.childPrompts.get("X1")).toBe("answered");
    expect([s.childMarks, s.subagentMarks]).toEqual([2, 2]);
  });

  it("task_updated replaces the task", () => {
    const s = applyAll([ev(1, "task_updated", { task: task("T1", "running") }), ev(2, "task_updated", { task: task("T1", "succeeded") })]);
    expect(s.tasks.get("T1")?.status).toBe("succeeded");
  });

  it("wakeup adds a note", () => {
    const s = applyAll([ev(1, "wakeup", { text: "task done", task_ids: ["T1"] })]);
    const w = only(s, "wakeup");
    expect([w.text, w.taskIds]).toEqual(["task done", ["T1"]]);
  });

  it("run_finished ends what waited on the run", () => {
    const s = applyAll([
      started(1),
      delta(2, "Hi"),
      toolCall(3),
      ev(4, "question_asked", { call_id: "C2", question_id: "Q1", questions: [] }),
      finished(5, "R1", "cancelled"),
    ]);
    expect(s.activeRunId).toBeNull();
    expect(only(s, "assistant").complete).toBe(true);
    expect(only(s, "tool").runEnded).toBe(true);
    expect(s.questions.get("Q1")?.expired).toBe(true);
    expect(only(s, "run_end").runState.finished?.status).toBe("cancelled");
    expect([s.runMarks, s.usageMarks, s.subagentMarks]).toEqual([2, 1, 1]);
  });

  it("run_finished of a queued input that never started shows nothing", () => {
    const s = applyAll([finished(1, "R9", "cancelled")]);
    expect(s.items).toEqual([]);
    expect(s.runs.get("R9")?.finished?.status).toBe("cancelled");
  });

  it("provider_retry keeps one retry line per run, over once the model answers", () => {
    const retry = (seq: number, attempt: number) =>
      ev(seq, "provider_retry", { attempt, max_attempts: 5, delay_ms: 2000, reason: "429" });
    const s = applyAll([started(1), retry(2, 1), retry(3, 2), delta(4, "ok")]);
    const r = only(s, "retry");
    expect([r.attempt, r.maxAttempts, r.delayMs, r.at, r.over, r.failed]).toEqual([2, 5, 2000, 1003, true, false]);
  });

  it("error adds a notice; a fatal one is shown at the run's end instead; an older server's retry error joins the retry line", () => {
    const s = applyAll([
      started(1),
      ev(2, "error", { code: "provider_retry", message: "retrying" }),
      ev(3, "error", { code: "tool_failed", message: "boom" }),
      ev(4, "error", { code: "provider_error", message: "down", fatal: true }),
    ]);
    expect(only(s, "retry").reason).toBe("retrying");
    const notices = s.items.filter((it) => it.kind === "notice");
    expect(notices.map((n) => [n.code, n.shownAtEnd])).toEqual([
      ["tool_failed", false],
      ["provider_error", true],
    ]);
  });

  it("model_usage sets the context fill, except for a summary call", () => {
    const u = (seq: number, purpose: string, tokens: number) =>
      ev(seq, "model_usage", { context_tokens: tokens, context_window: 1000, model: "m", purpose, usage });
    const s = applyAll([started(1), u(2, "turn", 300), u(3, "compaction", 900)]);
    expect(s.context).toEqual({ tokens: 300, window: 1000 });
    expect(s.usageMarks).toBe(2);
  });

  it("model_usage counted from the text's length marks the context fill estimated", () => {
    const e = ev(2, "model_usage", {
      context_tokens: 40,
      context_window: 1000,
      model: "m",
      purpose: "turn",
      usage: { ...usage, estimated: true },
    });
    expect(applyAll([started(1), e]).context).toEqual({ tokens: 40, window: 1000, estimated: true });
  });

  it("context_compacted adds a note and sets the context fill", () => {
    const s = applyAll([
      started(1),
      ev(2, "context_compacted", {
        context_window: 1000,
        messages_kept: 2,
        messages_summarized: 8,
        summary: "so far",
        tokens_after: 100,
        tokens_before: 800,
        trigger: "auto",
        usage: { ...usage, cost_usd: 0.01 },
      }),
    ]);
    const c = only(s, "compaction");
    expect([c.summary, c.tokensBefore, c.tokensAfter, c.costUsd, c.prunedOutputs]).toEqual(["so far", 800, 100, 0.01, 0]);
    expect(s.context).toEqual({ tokens: 100, window: 1000 });
  });

  it("session_reverted takes turns back; revert_undone brings them back", () => {
    let s = applyAll([started(1), prompt(2, "first"), finished(3), started(4, "R2"), prompt(5, "second", "R2"), finished(6, "R2")]);
    s = reduce(s, ev(7, "session_reverted", { revert_id: "V1", message_id: "M5", runs: ["R2"], files: [] }, null));
    const second = s.items.find((it) => it.kind === "user" && it.text === "second");
    const revert = only(s, "revert");
    expect([revert.prompt, revert.redoable]).toEqual(["second", true]);
    expect(second?.takenBack).toBe("lead");
    s = reduce(s, ev(8, "revert_undone", { revert_id: "V1", runs: ["R2"], files: [{ path: "a.txt", action: "restored" }] }, null));
    expect([revert.undone, revert.redoable]).toEqual([true, false]);
    expect(second?.takenBack).toBeUndefined();
  });

  it("a rewind of the files only leaves the turns an earlier rewind took back dimmed", () => {
    let s = applyAll([started(1), prompt(2, "first"), finished(3), started(4, "R2"), prompt(5, "second", "R2"), finished(6, "R2")]);
    s = reduce(s, ev(7, "session_reverted", { revert_id: "V1", message_id: "M5", runs: ["R2"], files: [] }, null));
    s = reduce(s, ev(8, "session_reverted", { revert_id: "V2", message_id: "M2", runs: [], files: [{ path: "a.txt", action: "restored" }] }, null));
    const second = s.items.find((it) => it.kind === "user" && it.text === "second");
    const first = s.items.find((it) => it.kind === "user" && it.text === "first");
    expect([first?.takenBack, second?.takenBack]).toEqual([undefined, "lead"]);
  });

  it("Regenerate is on the last finished answer only, and on none while a run goes on", () => {
    const answer = (seq: number, id: string, run: string) => ev(seq, "message_complete", { message_id: id, text: `answer ${id}`, reasoning: "" }, run);
    const regenerating = (st: TranscriptState) =>
      st.items.flatMap((it) => (it.kind === "assistant" && it.regenerate ? [[it.messageId, it.regenerate.text]] : []));
    let s = reduceBatch(emptyState(SESSION), [started(1), prompt(2, "first"), answer(3, "A1", "R1"), finished(4)]).state;
    expect(regenerating(s)).toEqual([["A1", "first"]]);
    s = reduceBatch(s, [started(5, "R2"), prompt(6, "second", "R2"), answer(7, "A2", "R2")]).state;
    expect(regenerating(s)).toEqual([]);
    s = reduceBatch(s, [finished(8, "R2")]).state;
    expect(regenerating(s)).toEqual([["A2", "second"]]);
    // Taken back: the answer before it offers it.
    s = reduceBatch(s, [ev(9, "session_reverted", { revert_id: "V1", message_id: "M6", runs: ["R2"], files: [] }, null)]).state;
    expect(regenerating(s)).toEqual([["A1", "first"]]);
  });

  it("goal_updated sets the goal; a goal prompt then counts its turn", () => {
    const s = applyAll([
      ev(1, "goal_updated", { goal: goal(2) }, null),
      started(2, "R1", "goal"),
      ev(3, "user_message", { message_id: "M3", text: "continue", origin: "goal" }),
    ]);
    expect(s.goal?.seq).toBe(1);
    expect(only(s, "user").goalTurn).toBe(3);
  });

  it("session_updated replaces the session; a new cap moves the usage marks", () => {
    let s = applyAll([ev(1, "session_updated", { data: session() }, null)]);
    expect(s.usageMarks).toBe(0);
    s = reduce(s, ev(2, "session_updated", { data: session({ spend_cap_usd: 5 }) }, null));
    expect(s.session?.spend_cap_usd).toBe(5);
    expect(s.usageMarks).toBe(1);
  });

  it("an unknown event type only advances the seq", () => {
    const unknown: UnknownEvent = { seq: 1, session: SESSION, at: 1, type: "from_the_future", x: 1 };
    const s = reduce(emptyState(SESSION), unknown);
    expect(s.lastSeq).toBe(1);
    expect(s.items).toEqual([]);
  });
});

describe("order, duplicates and holes", () => {
  it("applies a batch in seq order, whatever order it came in", () => {
    const { state, applied } = reduceBatch(emptyState(SESSION), [delta(3, "c"), started(1), delta(2, "b")]);
    expect(applied.map((f) => f.seq)).toEqual([1, 2, 3]);
    expect(only(state, "assistant").text).toBe("bc");
    expect([state.firstSeq, state.lastSeq]).toEqual([1, 3]);
  });

  it("drops duplicates, in a batch and across batches", () => {
    let s = reduceBatch(emptyState(SESSION), [started(1), delta(2, "a"), delta(2, "a")]).state;
    const again = reduceBatch(s, [delta(2, "a"), delta(3, "b")]);
    s = again.state;
    expect(again.applied.map((f) => f.seq)).toEqual([3]);
    expect(only(s, "assistant").text).toBe("ab");
    // One frame alone, at or below the last seq, changes nothing either.
    const v = only(s, "assistant").v;
    s = reduce(s, delta(3, "b"));
    s = reduce(s, delta(1, "x"));
    expect([only(s, "assistant").text, only(s, "assistant").v, s.lastSeq]).toEqual(["ab", v, 3]);
  });

  it("stops at a hole and gives back the frames after it", () => {
    const first = reduceBatch(emptyState(SESSION), [started(1), delta(2, "a")]);
    const holed = reduceBatch(first.state, [delta(5, "d"), delta(3, "b"), delta(6, "e")]);
    expect(holed.gap).toBe(true);
    expect(holed.applied.map((f) => f.seq)).toEqual([3]);
    expect(holed.later.map((f) => f.seq)).toEqual([5, 6]);
    expect(holed.state.lastSeq).toBe(3);
    // The hole filled: everything applies in order.
    const filled = reduceBatch(holed.state, [...holed.later, delta(4, "c")]);
    expect(filled.gap).toBe(false);
    expect(only(filled.state, "assistant").text).toBe("abcde");
  });

  it("passes over a hole it is told to accept", () => {
    const first = reduceBatch(emptyState(SESSION), [started(1)]);
    const accepted = reduceBatch(first.state, [delta(4, "late")], true);
    expect([accepted.gap, accepted.later.length, accepted.state.lastSeq]).toEqual([false, 0, 4]);
  });

  it("starts anywhere: the first page of a session read from its end is no hole", () => {
    const { state, gap } = reduceBatch(emptyState(SESSION), [delta(501, "mid-run"), finished(502)]);
    expect(gap).toBe(false);
    expect(state.firstSeq).toBe(501);
    // The run's start is in a page not read yet: it did run, and its end shows.
    expect(kinds(state)).toEqual(["assistant", "run_end"]);
  });

  it("a run whose start is not held still counts as running until its end", () => {
    const s = applyAll([toolCall(41), toolResult(42)]);
    expect(s.activeRunId).toBe("R1");
    expect(s.runs.get("R1")?.seen).toBe(true);
  });

  it("rebuild with an older page comes out as if read in one go, and asks for no attention", () => {
    const all: EventFrame[] = [
      started(1),
      prompt(2, "hi"),
      toolCall(3),
      ev(4, "approval_requested", {
        approval_id: "P1",
        call_id: "C1",
        effect: "process",
        input: {},
        reason: "r",
        scope: "effect",
        tool: "shell",
        warnings: [],
      }),
      toolResult(5),
      finished(6),
    ];
    const whole = applyAll(all);
    let paged = applyAll(all.slice(3));
    paged.tasks.set("T1", task("T1", "running"));
    paged.runMarks = 7;
    paged = rebuild(paged, all);
    const shape = (s: TranscriptState) => s.items.map((it) => [it.kind, it.key, it.seq]);
    expect(shape(paged)).toEqual(shape(whole));
    expect(paged.runs.get("R1")?.prompt).toBe("hi");
    expect(paged.tasks.has("T1")).toBe(true);
    expect(paged.runMarks).toBe(7);
    expect(takeChanges(paged).attention).toEqual([]);
  });
});

describe("changes and tasks", () => {
  it("reports the items touched and added, once", () => {
    const s = applyAll([started(1)]);
    takeChanges(s);
    reduce(s, delta(2, "a"));
    reduce(s, delta(3, "b"));
    const c = takeChanges(s);
    expect(c.added).toBe(true);
    expect(c.touched.map((it) => it.key)).toEqual(["m:A1", "m:A1"]);
    expect(takeChanges(s)).toEqual({ touched: [], added: false, itemsChanged: false, attention: [] });
  });

  it("merges REST tasks the events have not described, and keeps an ended task ended", () => {
    const s = applyAll([ev(1, "task_updated", { task: task("T1", "succeeded") })]);
    expect(mergeTasks(s, [task("T1", "running"), task("T2", "queued")])).toBe(true);
    expect([s.tasks.get("T1")?.status, s.tasks.get("T2")?.status]).toEqual(["succeeded", "queued"]);
    expect(updateTask(s, task("T1", "running"))).toBe(false);
    expect(updateTask(s, task("T2", "cancelled"))).toBe(true);
    expect(s.tasks.get("T2")?.status).toBe("cancelled");
  });
});

describe("line comments", () => {
  const plan = (seq: number, id: string) =>
    ev(seq, "plan_proposed", { plan_id: id, artifact_id: `art-${id}`, call_id: `C${seq}`, diagrams: [], dropped: [], files: [], hash: "h", plan: "# P\n\n1. Do it.", removed: [], revision: 1 });
  const comment = (id: string, over: Partial<ReviewComment> = {}): ReviewComment => ({
    id,
    session: SESSION,
    target: "plan",
    plan_id: "PL1",
    path: "",
    start_line: 3,
    end_line: 3,
    side: "new",
    quote: "1. Do it.",
    body: "Which way?",
    status: "draft",
    created_at: 5,
    updated_at: 5,
    ...over,
  });

  it("the events keep the list and the plan revision they are on, whose card is drawn again", () => {
    let s = applyAll([started(1), plan(2, "PL1")]);
    takeChanges(s);
    s = reduce(s, ev(3, "review_comment_added", { comment: comment("K1") }, null));
    const card = only(s, "plan");
    expect(takeChanges(s).touched).toContain(card);
    expect(card.plan.comments.map((c) => c.id)).toEqual(["K1"]);
    s = reduce(s, ev(4, "review_comment_updated", { comment: comment("K1", { status: "answered", answer: "Like so.", updated_at: 9 }) }, null));
    expect([s.comments[0].status, card.plan.comments[0].answer]).toEqual(["answered", "Like so."]);
    s = reduce(s, ev(5, "review_comment_resolved", { comment: comment("K1", { updated_at: 10 }), deleted: true }, null));
    expect([s.comments, card.plan.comments]).toEqual([[], []]);
    // A REST list read before the deletion does not bring it back.
    expect(mergeComments(s, [comment("K1")])).toBe(false);
  });

  it("a REST list read before the events survives a rebuild; run ends and reverts move the review's marks", () => {
    let s = applyAll([started(1), plan(2, "PL1"), finished(3)]);
    expect(s.reviewMarks).toBe(1);
    expect(mergeComments(s, [comment("K1"), comment("K2", { target: "diff", plan_id: null, path: "a.txt", created_at: 6 })])).toBe(true);
    expect(only(s, "plan").plan.comments.map((c) => c.id)).toEqual(["K1"]);
    s = rebuild(s, [started(1), plan(2, "PL1"), finished(3)]);
    expect(s.comments.map((c) => c.id)).toEqual(["K1", "K2"]);
    expect(s.reviewMarks).toBe(1);
  });
});
