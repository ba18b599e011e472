// The transcript of one session as a reducer: `reduce(state, frame)` applies one event frame and
// returns the state. Pure: no DOM, no network, no timers, no module state; everything it reads or
// changes is in the state it is given. The live store (transcript.ts) queues frames, hands them
// over here, and announces what changed; the unit tests (reduce.test.ts) drive it without either.
//
// The state is handed over, as to a function that takes it by value: `reduce` changes it and
// returns it, and the caller keeps only what it returned. Items change in place and count each
// change in `v` (a row re-renders only when its item's `v` moved); `changes` lists what the frames
// since it was last taken changed, for the store to announce.
//
// A session is read from its end, so every event is applied as if its beginnings might be missing
// (a tool result without its call, a run's end without its start); an older page is applied by
// building the state again from all the events held (`rebuild`).
import { isKnownEvent } from "../api/events";
import type {
  ChildPendingStatus,
  EventEnvelope,
  EventFrame,
  EventOf,
  EventType,
  KnownEvent,
  ReviewComment,
  Session,
  Task,
} from "../api/types";
import type {
  ApprovalItem,
  ApprovalState,
  AssistantItem,
  CompactionItem,
  ContextState,
  GoalMark,
  Item,
  NoticeItem,
  PlanItem,
  PlanState,
  QuestionItem,
  QuestionState,
  RetryItem,
  RunEndItem,
  RunStartItem,
  RunState,
  ToolItem,
  UserItem,
  WakeupItem,
  WebSearchItem,
  HookItem,
} from "./items";
import { dropComment, putComment } from "./comments";
import { appendOutput, emptyOutput, type LiveOutput } from "./output";
import { regenerateTarget } from "./regenerate";
import { RevertBook, revertItem } from "./reverts";

/** Task states that may still change (a task in one of them is live). */
export const LIVE_TASK: ReadonlySet<Task["status"]> = new Set<Task["status"]>(["queued", "running", "stopping"]);

/** The tools that start, follow and steer subagents: their results change the list of subagents. */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["task", "task_wait", "task_status", "send_message"]);

/** Event types that only happen while their run runs: seeing one means the run did run. */
const IN_RUN: ReadonlySet<EventType> = new Set<EventType>([
  "user_message",
  "message_delta",
  "reasoning_delta",
  "message_complete",
  "tool_call",
  "policy_decision",
  "tool_output",
  "tool_result",
  "approval_requested",
  "question_asked",
  "plan_proposed",
  "provider_retry",
  "model_usage",
  "context_compacted",
  "web_search",
  "hook_ran",
]);

/** The event types a search hit can point at: each is indexed by seq to the item showing it. */
const SEARCHABLE: ReadonlySet<EventType> = new Set<EventType>(["user_message", "message_complete", "tool_call", "tool_result"]);

/** What frames changed since the store last took them (`takeChanges`). */
export interface Changes {
  /** Items whose `v` moved, in order (an item may appear more than once). */
  touched: Item[];
  /** An item was added. */
  added: boolean;
  /** An item was added or changed: the list needs a new identity to re-render. */
  itemsChanged: boolean;
  /** Events that ask for the user (approvals, questions, plans, a subagent's prompt). */
  attention: KnownEvent[];
}

export interface TranscriptState {
  readonly sessionId: string;
  /** The seq of the newest event applied (0: none). */
  lastSeq: number;
  /** The seq of the oldest event applied (0: none). */
  firstSeq: number;
  items: Item[];
  session: Session | null;
  retries: Map<string, RetryItem>;
  messages: Map<string, AssistantItem>;
  tools: Map<string, ToolItem>;
  runs: Map<string, RunState>;
  approvals: Map<string, ApprovalState>;
  questions: Map<string, QuestionState>;
  plans: Map<string, PlanState>;
  tasks: Map<string, Task>;
  /** What each running background task wrote so far (`task_output`), by task id. */
  taskOutput: Map<string, LiveOutput>;
  planRevisions: Map<string, PlanState[]>;
  /** Items by the run they belong to (what a run's end changes). */
  runItems: Map<string, Item[]>;
  runEnds: RunEndItem[];
  approvalItems: Map<string, ApprovalItem>;
  questionItems: Map<string, QuestionItem>;
  planItems: Map<string, PlanItem>;
  /** User messages by `message_id` (what a revert names). */
  userItems: Map<string, UserItem>;
  /** The key of the item that shows each searchable event, by seq. */
  seqKeys: Map<number, string>;
  reverts: RevertBook;
  activeRunId: string | null;
  /** Counts run_started and run_finished events: what waits behind a run changes with them. */
  runMarks: number;
  /** Counts what changes the session's usage or caps: model calls, compactions, run ends, a new cap. */
  usageMarks: number;
  context: ContextState | null;
  goal: GoalMark | null;
  childPrompts: Map<string, ChildPendingStatus>;
  /** Counts `child_pending` events. */
  childMarks: number;
  /** Counts what may change the session's subagents. */
  subagentMarks: number;
  /** The goal turns used as the latest `goal_updated` held counts them (null: none held). */
  goalTurns: number | null;
  /** The answer that offers Regenerate (null: none does). */
  regenerateOn: AssistantItem | null;
  /** The session's line comments, oldest first: a new list on each change. */
  comments: readonly ReviewComment[];
  /** Comments deleted: a REST list read before the deletion does not bring them back. */
  deletedComments: Set<string>;
  /** Counts run ends, reverts and redos: what the session changed is read again when it moves. */
  reviewMarks: number;
  changes: Changes;
}

const noChanges = (): Changes => ({ touched: [], added: false, itemsChanged: false, attention: [] });

export function emptyState(sessionId: string): TranscriptState {
  const s: TranscriptState = {
    sessionId,
    lastSeq: 0,
    firstSeq: 0,
    items: [],
    session: null,
    retries: new Map(),
    messages: new Map(),
    tools: new Map(),
    runs: new Map(),
    approvals: new Map(),
    questions: new Map(),
    plans: new Map(),
    tasks: new Map(),
    taskOutput: new Map(),
    planRevisions: new Map(),
    runItems: new Map(),
    runEnds: [],
    approvalItems: new Map(),
    questionItems: new Map(),
    planItems: new Map(),
    userItems: new Map(),
    seqKeys: new Map(),
    reverts: new RevertBook(
      (run) => s.runItems.get(run) ?? [],
      (item) => touch(s, item),
    ),
    activeRunId: null,
    runMarks: 0,
    usageMarks: 0,
    context: null,
    goal: null,
    childPrompts: new Map(),
    childMarks: 0,
    subagentMarks: 0,
    goalTurns: null,
    regenerateOn: null,
    comments: [],
    deletedComments: new Set(),
    reviewMarks: 0,
    changes: noChanges(),
  };
  return s;
}

/** What changed since the last call (the list starts empty again). */
export function takeChanges(s: TranscriptState): Changes {
  const c = s.changes;
  s.changes = noChanges();
  return c;
}

/**
 * Apply one event frame. A frame at or below `lastSeq` is a duplicate and changes nothing; a newer
 * one is applied even past a hole (keeping holes out is `reduceBatch`'s job). A frame of a type
 * this build does not know only advances the seq.
 */
export function reduce(s: TranscriptState, frame: EventFrame): TranscriptState {
  if (frame.seq <= s.lastSeq) return s;
  s.lastSeq = frame.seq;
  if (s.firstSeq === 0) s.firstSeq = frame.seq;
  if (isKnownEvent(frame)) apply(s, frame);
  return s;
}

export interface Batch {
  state: TranscriptState;
  /** The frames applied, in seq order. */
  applied: EventFrame[];
  /** Frames after a hole, kept back until it is filled (or accepted). */
  later: EventFrame[];
  /** A hole was seen after `state.lastSeq`: the events in it are to be read again. */
  gap: boolean;
}

/**
 * Apply frames in seq order, whatever order they came in: duplicates are dropped, and a hole in
 * the seqs (a frame past `lastSeq + 1` once something is held) stops the batch there; that frame
 * and every later one come back in `later`. With `acceptGap`, the hole is passed over instead (it
 * could not be filled).
 */
export function reduceBatch(s: TranscriptState, frames: readonly EventFrame[], acceptGap = false): Batch {
  const sorted = [...frames].sort((a, b) => a.seq - b.seq);
  const applied: EventFrame[] = [];
  const later: EventFrame[] = [];
  let gap = false;
  for (const f of sorted) {
    if (gap) {
      later.push(f);
      continue;
    }
    if (f.seq <= s.lastSeq) continue;
    if (f.seq > s.lastSeq + 1 && s.lastSeq > 0 && !acceptGap) {
      gap = true;
      later.push(f);
      continue;
    }
    s = reduce(s, f);
    applied.push(f);
  }
  if (applied.length > 0) markRegenerate(s);
  return { state: s, applied, later, gap };
}

/**
 * The state built again from every event held, oldest first (after an older page arrived). The
 * tasks read over REST are kept (what we knew is at least as new as any event held), and the
 * marks go on from where they were: older runs change nothing that waits behind the current one.
 * Replayed events ask for no one's attention.
 */
export function rebuild(prev: TranscriptState, held: readonly EventFrame[]): TranscriptState {
  let s = emptyState(prev.sessionId);
  for (const ev of held) s = reduce(s, ev);
  markRegenerate(s);
  for (const [id, t] of prev.tasks) s.tasks.set(id, t);
  s.runMarks = prev.runMarks;
  s.usageMarks = prev.usageMarks;
  s.childMarks = prev.childMarks;
  s.subagentMarks = prev.subagentMarks;
  s.reviewMarks = prev.reviewMarks;
  // What was known of the comments (the REST list included) is at least as new as any event held.
  for (const id of prev.deletedComments) s.deletedComments.add(id);
  mergeComments(s, prev.comments);
  s.changes = noChanges();
  return s;
}

/**
 * Comments from the REST list: each added, or replacing an older copy; a deleted one stays
 * deleted. The plan revisions they are on show them. Returns whether any changed.
 */
export function mergeComments(s: TranscriptState, list: readonly ReviewComment[]): boolean {
  let changed = false;
  for (const c of list) changed = setComment(s, c, false) || changed;
  return changed;
}

/** A comment as an event or a read says it now (`deleted`: it is gone). Returns whether it changed anything. */
export function setComment(s: TranscriptState, c: ReviewComment, deleted: boolean): boolean {
  if (deleted) s.deletedComments.add(c.id);
  else if (s.deletedComments.has(c.id)) return false;
  const next = deleted ? dropComment(s.comments, c.id) : putComment(s.comments, c);
  if (!next) return false;
  s.comments = next;
  const plan = c.plan_id ? s.plans.get(c.plan_id) : undefined;
  if (plan) {
    plan.comments = next.filter((x) => x.plan_id === plan.id);
    const item = s.planItems.get(plan.id);
    if (item) touch(s, item);
  }
  return true;
}

/** Tasks from the REST list: added when the event stream has not described them yet. Returns whether any was. */
export function mergeTasks(s: TranscriptState, list: readonly Task[]): boolean {
  let changed = false;
  for (const t of list) {
    if (!s.tasks.has(t.id)) {
      s.tasks.set(t.id, t);
      changed = true;
    }
  }
  return changed;
}

/** A task state read from the REST API (e.g. the answer to stop); a stale live state does not undo an end. */
export function updateTask(s: TranscriptState, t: Task): boolean {
  const cur = s.tasks.get(t.id);
  if (cur && LIVE_TASK.has(t.status) && !LIVE_TASK.has(cur.status)) return false;
  s.tasks.set(t.id, t);
  return true;
}

// ---- Applying one event -------------------------------------------------------

function touch(s: TranscriptState, item: Item): void {
  item.v++;
  s.changes.itemsChanged = true;
  s.changes.touched.push(item);
}

/** Regenerate moves to the answer that now offers it (once per batch of events). */
function markRegenerate(s: TranscriptState): void {
  const t = regenerateTarget(s.items, s.runs, s.activeRunId);
  const prev = s.regenerateOn;
  if (prev === (t?.answer ?? null) && prev?.regenerate === t?.prompt) return;
  if (prev) {
    prev.regenerate = undefined;
    touch(s, prev);
  }
  if (t) {
    t.answer.regenerate = t.prompt;
    touch(s, t.answer);
  }
  s.regenerateOn = t?.answer ?? null;
}

function add<T extends Item>(s: TranscriptState, item: T): T {
  s.items.push(item);
  s.changes.itemsChanged = true;
  s.changes.added = true;
  if (item.run) {
    let list = s.runItems.get(item.run);
    if (!list) s.runItems.set(item.run, (list = []));
    list.push(item);
  }
  return item;
}

/** The run's retry line (if any) stops counting down. */
function retryOver(s: TranscriptState, run: string | null, failed = false): void {
  const r = s.retries.get(`retry:${run ?? "none"}`);
  if (r && (!r.over || (failed && !r.failed))) {
    r.over = true;
    r.failed = failed;
    touch(s, r);
  }
}

/** The run's retry line, created on its first retry. */
function retryLine(s: TranscriptState, ev: EventEnvelope): RetryItem {
  const key = `retry:${ev.run ?? "none"}`;
  let r = s.retries.get(key);
  if (!r) {
    r = add<RetryItem>(s, {
      kind: "retry",
      key,
      seq: ev.seq,
      run: ev.run ?? null,
      v: 0,
      attempt: 0,
      maxAttempts: 0,
      at: 0,
      delayMs: 0,
      reason: "",
      over: false,
      failed: false,
    });
    s.retries.set(key, r);
  }
  return r;
}

function runState(s: TranscriptState, id: string): RunState {
  let r = s.runs.get(id);
  if (!r) {
    r = { id, started: null, finished: null, prompt: null, superseded: false, seen: false };
    s.runs.set(id, r);
  }
  return r;
}

function assistant(s: TranscriptState, ev: EventEnvelope, messageId: string): AssistantItem {
  let m = s.messages.get(messageId);
  if (!m) {
    m = add<AssistantItem>(s, {
      kind: "assistant",
      key: `m:${messageId}`,
      seq: ev.seq,
      run: ev.run ?? null,
      v: 0,
      messageId,
      text: "",
      reasoning: "",
      complete: false,
      at: ev.at,
      citations: [],
    });
    s.messages.set(messageId, m);
  }
  return m;
}

/**
 * The call's item, made by the first of its events held. A call first seen by its output (its
 * `tool_call` is in a page not read yet) has no tool name until its result brings one.
 */
function tool(s: TranscriptState, ev: EventOf<"tool_call" | "tool_output" | "tool_result">): ToolItem {
  let t = s.tools.get(ev.call_id);
  if (!t) {
    t = add<ToolItem>(s, {
      kind: "tool",
      key: `t:${ev.call_id}`,
      seq: ev.seq,
      run: ev.run ?? null,
      v: 0,
      callId: ev.call_id,
      tool: ev.type === "tool_output" ? "" : ev.tool,
      effect: ev.type === "tool_call" ? ev.effect : null,
      input: ev.type === "tool_call" ? ev.input : null,
      decision: null,
      decisionReason: null,
      approvalId: null,
      approval: null,
      output: null,
      result: null,
      runEnded: false,
    });
    s.tools.set(ev.call_id, t);
  }
  return t;
}

function expireRun(s: TranscriptState, runId: string): void {
  for (const a of s.approvals.values()) if (a.run === runId && a.decision === null) a.expired = true;
  for (const q of s.questions.values()) if (q.run === runId && q.answers === null) q.expired = true;
  for (const p of s.plans.values()) if (p.run === runId && p.decision === null) p.expired = true;
  for (const it of s.runItems.get(runId) ?? []) {
    if (
      (it.kind === "approval" && it.approval.run === runId) ||
      (it.kind === "question" && it.question.run === runId) ||
      (it.kind === "plan" && it.plan.run === runId)
    ) {
      touch(s, it);
    }
  }
}

/**
 * An event of a run whose start we have not seen (it is older than the events held): the run
 * did run, and it still runs unless its end follows.
 */
function sawRunEvent(s: TranscriptState, ev: KnownEvent, run: string): void {
  if (!IN_RUN.has(ev.type)) return;
  const r = s.runs.get(run);
  if (r && (r.started || r.seen)) return;
  const rs = r ?? runState(s, run);
  rs.seen = true;
  if (!rs.finished && !s.activeRunId) s.activeRunId = run;
}

function apply(s: TranscriptState, ev: KnownEvent): void {
  const run = ev.run ?? null;
  if (run) sawRunEvent(s, ev, run);
  const shownBy = (key: string) => {
    if (SEARCHABLE.has(ev.type)) s.seqKeys.set(ev.seq, key);
  };
  switch (ev.type) {
    case "user_message": {
      const rs = run ? s.runs.get(run) : undefined;
      const origin = ev.origin ?? rs?.started?.trigger;
      const internal = origin === "plan" || origin === "wakeup" || origin === "resume" || origin === "goal" ? origin : null;
      // A message steered into the run is not what started it: Retry sends the run's own prompt.
      if (rs && !internal && !ev.steered_from) rs.prompt = ev.text;
      // A goal turn is the one after those its goal has counted (the count arrives after each).
      let goalTurn: number | null = null;
      if (internal === "goal" && s.goalTurns !== null) {
        goalTurn = s.goalTurns + 1;
        s.goalTurns = goalTurn;
      }
      const u = add<UserItem>(s, {
        kind: "user",
        key: `u:${ev.message_id || ev.seq}`,
        seq: ev.seq,
        run,
        v: 0,
        messageId: ev.message_id,
        text: ev.text,
        at: ev.at,
        internal,
        goalTurn,
        images: ev.images ?? [],
        steeredFrom: ev.steered_from ?? null,
        // A subagent's task was written by its parent agent, not typed: nothing to edit and resend.
        editable: !internal && origin !== "command" && origin !== "task" && !ev.text.startsWith("!"),
        agent: rs?.started?.agent ?? null,
        sessionId: s.sessionId,
      });
      if (ev.message_id) s.userItems.set(ev.message_id, u);
      shownBy(u.key);
      break;
    }
    case "run_started": {
      const id = ev.run_id;
      const r = runState(s, id);
      r.started = ev;
      s.activeRunId = id;
      s.runMarks++;
      s.reverts.runStarted(ev.seq);
      for (const it of s.runEnds) {
        if (it.runState !== r && !it.runState.superseded) {
          it.runState.superseded = true;
          touch(s, it);
        }
      }
      add<RunStartItem>(s, { kind: "run_start", key: `rs:${id}`, seq: ev.seq, run: id, v: 0, runState: r });
      break;
    }
    case "message_delta": {
      retryOver(s, run);
      const m = assistant(s, ev, ev.message_id);
      m.text += ev.text;
      touch(s, m);
      break;
    }
    case "reasoning_delta": {
      const m = assistant(s, ev, ev.message_id);
      m.reasoning += ev.text;
      touch(s, m);
      break;
    }
    case "message_complete": {
      const m = assistant(s, ev, ev.message_id);
      m.text = ev.text;
      // The deltas held are the reasoning when the complete message carries none.
      if (ev.reasoning) m.reasoning = ev.reasoning;
      m.citations = ev.citations ?? [];
      m.complete = true;
      touch(s, m);
      shownBy(m.key);
      break;
    }
    case "tool_call": {
      const t = tool(s, ev);
      t.tool = ev.tool;
      t.effect = ev.effect;
      t.input = ev.input;
      touch(s, t);
      shownBy(t.key);
      break;
    }
    case "policy_decision": {
      const t = s.tools.get(ev.call_id);
      if (t) {
        t.decision = ev.decision;
        t.decisionReason = ev.reason;
        touch(s, t);
      }
      break;
    }
    case "approval_requested": {
      const a: ApprovalState = { id: ev.approval_id, seq: ev.seq, run, event: ev, decision: null, reason: null, expired: false };
      s.approvals.set(a.id, a);
      const t = s.tools.get(ev.call_id);
      if (t) {
        t.approvalId = a.id;
        touch(s, t);
      }
      s.approvalItems.set(a.id, add<ApprovalItem>(s, { kind: "approval", key: `a:${a.id}`, seq: ev.seq, run, v: 0, approval: a }));
      s.changes.attention.push(ev);
      break;
    }
    case "approval_decided": {
      const a = s.approvals.get(ev.approval_id);
      if (a) {
        a.decision = ev.decision;
        a.reason = ev.reason ?? null;
        const item = s.approvalItems.get(a.id);
        if (item) touch(s, item);
        // Its call's card stops waiting: it runs (or is denied) from now on.
        const t = s.tools.get(a.event.call_id);
        if (t) {
          t.approval = ev.decision;
          touch(s, t);
        }
      }
      break;
    }
    case "tool_output": {
      const t = tool(s, ev);
      // The result holds the whole output: what came live is no longer shown.
      if (t.result) break;
      t.output ??= emptyOutput();
      appendOutput(t.output, ev.stream, ev.text);
      touch(s, t);
      break;
    }
    case "tool_result": {
      const t = tool(s, ev);
      // Made by its output (its call not held): the result names the tool.
      if (!t.tool) t.tool = ev.tool;
      t.result = { ok: ev.ok, text: ev.text, parts: ev.parts };
      t.output = null;
      if (SUBAGENT_TOOLS.has(t.tool)) s.subagentMarks++;
      touch(s, t);
      shownBy(t.key);
      break;
    }
    case "question_asked": {
      if (s.questions.has(ev.question_id)) break;
      const q: QuestionState = { id: ev.question_id, seq: ev.seq, run, questions: ev.questions, answers: null, expired: false, reason: null };
      s.questions.set(q.id, q);
      s.questionItems.set(q.id, add<QuestionItem>(s, { kind: "question", key: `q:${q.id}`, seq: ev.seq, run, v: 0, question: q }));
      s.changes.attention.push(ev);
      break;
    }
    case "question_answered": {
      const q = s.questions.get(ev.question_id);
      if (q) {
        q.answers = ev.answers;
        q.reason = ev.reason ?? null;
        const item = s.questionItems.get(q.id);
        if (item) touch(s, item);
      }
      break;
    }
    case "plan_proposed": {
      if (s.plans.has(ev.plan_id)) break;
      // Each revision is its own artifact; a session's plan revisions form one series.
      const series = "plan";
      let revisions = s.planRevisions.get(series);
      if (!revisions) s.planRevisions.set(series, (revisions = []));
      const comments = s.comments.filter((c) => c.plan_id === ev.plan_id);
      const p: PlanState = { id: ev.plan_id, seq: ev.seq, run, event: ev, decision: null, feedback: null, expired: false, reason: null, revisions, comments };
      revisions.push(p);
      // Earlier revisions offer the newer ones in their picker.
      for (const it of s.planItems.values()) if (it.plan.revisions === revisions) touch(s, it);
      s.plans.set(p.id, p);
      s.planItems.set(p.id, add<PlanItem>(s, { kind: "plan", key: `p:${p.id}`, seq: ev.seq, run, v: 0, plan: p }));
      s.changes.attention.push(ev);
      break;
    }
    case "plan_decided": {
      const p = s.plans.get(ev.plan_id);
      if (p) {
        p.decision = ev.decision;
        p.feedback = ev.feedback ?? null;
        p.reason = ev.reason ?? null;
        const item = s.planItems.get(p.id);
        if (item) touch(s, item);
      }
      break;
    }
    case "child_pending": {
      // The prompt itself is read over REST (`pending`); the event says when to read it again.
      s.childPrompts.set(ev.id, ev.status);
      s.childMarks++;
      s.subagentMarks++;
      if (ev.status === "pending") s.changes.attention.push(ev);
      break;
    }
    case "task_updated": {
      s.tasks.set(ev.task.id, ev.task);
      break;
    }
    case "task_output": {
      let o = s.taskOutput.get(ev.task_id);
      if (!o) s.taskOutput.set(ev.task_id, (o = emptyOutput()));
      // One pipe carries both streams, in the order written.
      appendOutput(o, "stdout", ev.text);
      break;
    }
    case "web_search": {
      add<WebSearchItem>(s, {
        kind: "web_search",
        key: `ws:${ev.seq}`,
        seq: ev.seq,
        run,
        v: 0,
        searchId: ev.search_id,
        provider: ev.provider,
        query: ev.query,
        status: ev.status,
        results: ev.results,
        error: ev.error ?? null,
      });
      break;
    }
    case "hook_ran": {
      add<HookItem>(s, {
        kind: "hook",
        key: `h:${ev.seq}`,
        seq: ev.seq,
        run,
        v: 0,
        event: ev.event,
        command: ev.command,
        tool: ev.tool ?? null,
        outcome: ev.outcome,
        reason: ev.reason ?? null,
        durationMs: ev.duration_ms,
      });
      break;
    }
    case "wakeup": {
      add<WakeupItem>(s, { kind: "wakeup", key: `w:${ev.seq}`, seq: ev.seq, run, v: 0, text: ev.text, taskIds: ev.task_ids });
      break;
    }
    case "run_finished": {
      runFinished(s, ev);
      break;
    }
    case "provider_retry": {
      const r = retryLine(s, ev);
      r.attempt = ev.attempt;
      r.maxAttempts = ev.max_attempts;
      r.at = ev.at;
      r.delayMs = ev.delay_ms;
      r.reason = ev.reason;
      touch(s, r);
      break;
    }
    case "error": {
      if (ev.code === "provider_retry") {
        // An older server's retry announcement: it belongs on the run's one retry line.
        const r = retryLine(s, ev);
        r.attempt++;
        r.at = ev.at;
        r.reason = ev.message;
        touch(s, r);
        break;
      }
      add<NoticeItem>(s, {
        kind: "notice",
        key: `e:${ev.seq}`,
        seq: ev.seq,
        run,
        v: 0,
        code: ev.code,
        message: ev.message,
        // The run ends with this error and its end shows it: not twice.
        shownAtEnd: ev.fatal ?? false,
      });
      break;
    }
    case "model_usage": {
      // A summary call's prompt is not the conversation: its fill comes with context_compacted.
      if (ev.purpose !== "compaction") {
        s.context = { tokens: ev.context_tokens, window: ev.context_window };
        if (ev.usage?.estimated === true) s.context.estimated = true;
      }
      s.usageMarks++;
      break;
    }
    case "context_compacted": {
      s.context = { tokens: ev.tokens_after, window: ev.context_window };
      s.usageMarks++;
      add<CompactionItem>(s, {
        kind: "compaction",
        key: `c:${ev.seq}`,
        seq: ev.seq,
        run,
        v: 0,
        trigger: ev.trigger,
        summary: ev.summary,
        messagesSummarized: ev.messages_summarized,
        messagesKept: ev.messages_kept,
        tokensBefore: ev.tokens_before,
        tokensAfter: ev.tokens_after,
        costUsd: ev.usage.cost_usd ?? null,
        prunedOutputs: ev.pruned_outputs ?? 0,
      });
      break;
    }
    case "review_comment_added":
    case "review_comment_updated":
      setComment(s, ev.comment, false);
      break;
    case "review_comment_resolved":
      setComment(s, ev.comment, ev.deleted === true);
      break;
    case "session_reverted": {
      s.reviewMarks++;
      const prompt = s.userItems.get(ev.message_id)?.text ?? "";
      s.reverts.reverted(add(s, revertItem(ev, prompt, s.sessionId)));
      break;
    }
    case "revert_undone": {
      s.reviewMarks++;
      s.reverts.undone(ev.revert_id, ev.files);
      break;
    }
    case "goal_updated": {
      const goal = ev.goal ?? null;
      s.goal = { goal, seq: ev.seq };
      s.goalTurns = goal ? goal.budget.used_turns : null;
      break;
    }
    case "session_updated": {
      // A new cap (an unknown old one counts as none) changes what the header shows.
      if ((s.session?.spend_cap_usd ?? null) !== (ev.data.spend_cap_usd ?? null)) s.usageMarks++;
      s.session = ev.data;
      break;
    }
    default:
      // Audit-only event types change nothing shown.
      break;
  }
}

function runFinished(s: TranscriptState, ev: EventOf<"run_finished">): void {
  const run = ev.run ?? null;
  retryOver(s, run, ev.status === "failed");
  const id = run ?? ev.run_id;
  const r = runState(s, id);
  r.finished = ev;
  const code = ev.error?.code;
  if (s.activeRunId === id) s.activeRunId = null;
  s.runMarks++;
  s.usageMarks++;
  s.subagentMarks++;
  s.reviewMarks++;
  expireRun(s, id);
  for (const it of s.runItems.get(id) ?? []) {
    if (it.kind === "tool" && !it.result && !it.runEnded) {
      it.runEnded = true;
      touch(s, it);
    }
    if (it.kind === "run_start" && it.runState === r) touch(s, it);
    if (it.kind === "assistant" && !it.complete) {
      it.complete = true;
      touch(s, it);
    }
    if (it.kind === "notice" && code && it.code === code && !it.shownAtEnd) {
      it.shownAtEnd = true;
      touch(s, it);
    }
  }
  // A queued input removed (or dropped) before it started: nothing ran, nothing to show.
  // (A run whose start is in a page not loaded yet did run: its events were seen.)
  if (!r.started && !r.seen) return;
  s.runEnds.push(add<RunEndItem>(s, { kind: "run_end", key: `re:${id}:${ev.seq}`, seq: ev.seq, run: id, v: 0, runState: r }));
}
