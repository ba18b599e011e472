// The transcript of one session, built by applying events in seq order.
// Items are mutated in place and carry a version `v` so views can skip
// re-rendering what did not change; all events that arrive within one
// animation frame are applied together and announced once.
//
// A session is read from its end: the newest page first, then older pages as the user scrolls
// up. The events held always run without a hole from `firstSeq` to `lastSeq`; a run can start in
// a page not loaded yet, so every event is applied as if its beginnings might be missing (a tool
// result without its call, a run's end without its start). An older page rebuilds the whole
// transcript from the events held, so what straddles the boundary comes out as if read in one go.
import { isKnownEvent } from "../api/events";
import type { ChildPendingStatus, EventFrame, EventOf, EventPage, FrameHeader, ServerEvent, Session, Task } from "../api/types";
import { frameScheduler, inAnimationFrame } from "./frame";
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
  TranscriptSnapshot,
  UserItem,
  WakeupItem,
} from "./items";
import { RevertBook, revertItem } from "./reverts";

export type * from "./items";

const str = (v: unknown): string => (typeof v === "string" ? v : "");

export const LIVE_TASK = new Set(["queued", "running", "stopping"]);

/**
 * Live text (the server sends deltas about every 50 ms) shows at most every 150 ms: each update
 * parses the reply's last blocks, lays them out and paints them, several ms on a slow machine,
 * and six or seven updates a second still read as text being typed (a few words each at a
 * model's pace). An update also waits at least UPDATE_COST_FACTOR times what the last one cost
 * the main thread (more as the reply grows, more on a slow or busy device): the updates keep to
 * about 1/30 of the page's time. Any other event is shown on the next frame, with the text that
 * came before it.
 */
export const DELTA_EVERY_MS = 150;
const DELTA_EVERY_MAX_MS = 500;
const UPDATE_COST_FACTOR = 30;
const isDelta = (e: ServerEvent) => e.type === "message_delta" || e.type === "reasoning_delta";

/** Event types that only happen while their run runs: seeing one means the run did run. */
const IN_RUN = new Set([
  "user_message",
  "message_delta",
  "reasoning_delta",
  "message_complete",
  "tool_call",
  "policy_decision",
  "tool_result",
  "approval_requested",
  "question_asked",
  "plan_proposed",
  "provider_retry",
  "model_usage",
  "context_compacted",
]);

/** The event types a search hit can point at: each is indexed by seq to the item showing it. */
const SEARCHABLE = new Set(["user_message", "message_complete", "tool_call", "tool_result"]);

/** The tools that start, follow and steer subagents: their results change the list of subagents. */
export const SUBAGENT_TOOLS = new Set(["task", "task_wait", "task_status", "send_message"]);

/** A user message `/undo` reverts to. */
export interface UndoTarget {
  messageId: string;
  text: string;
}

/** Everything `apply` builds: thrown away and built again when an older page arrives. */
class BuildState {
  items: Item[] = [];
  session: Session | null = null;
  retries = new Map<string, RetryItem>();
  messages = new Map<string, AssistantItem>();
  tools = new Map<string, ToolItem>();
  runs = new Map<string, RunState>();
  approvals = new Map<string, ApprovalState>();
  questions = new Map<string, QuestionState>();
  plans = new Map<string, PlanState>();
  tasks = new Map<string, Task>();
  planRevisions = new Map<string, PlanState[]>();
  /** Items by the run they belong to (what a run's end changes). */
  runItems = new Map<string, Item[]>();
  runEnds: RunEndItem[] = [];
  approvalItems = new Map<string, ApprovalItem>();
  questionItems = new Map<string, QuestionItem>();
  planItems = new Map<string, PlanItem>();
  /** User messages by `message_id` (what a revert names). */
  userItems = new Map<string, UserItem>();
  /** The key of the item that shows each searchable event, by seq. */
  seqKeys = new Map<number, string>();
  reverts: RevertBook;
  activeRunId: string | null = null;
  runMarks = 0;
  usageMarks = 0;
  context: ContextState | null = null;
  goal: GoalMark | null = null;
  childPrompts = new Map<string, ChildPendingStatus>();
  childMarks = 0;
  subagentMarks = 0;
  /** The goal turns used as the latest `goal_updated` held counts them (null: none held). */
  goalTurns: number | null = null;

  constructor(touch: (item: Item) => void) {
    this.reverts = new RevertBook((run) => this.runItems.get(run) ?? [], touch);
  }
}

export class Transcript {
  lastSeq = 0;
  /** The seq of the oldest event held (0: none yet). */
  firstSeq = 0;
  version = 0;
  /** The newest page has been applied. */
  loaded = false;
  loadError: string | null = null;
  /** Older events exist than those held; `olderCursor` is the `before` that reads them. */
  hasOlder = false;
  olderCursor = 0;
  loadingOlder = false;
  olderError: string | null = null;
  private b = new BuildState((item) => this.touch(item));
  /** Every event applied, in seq order: what a rebuild replays. */
  private held: ServerEvent[] = [];
  private replaying = false;
  private itemsChanged = false;
  private allowGap = false;
  private queue: ServerEvent[] = [];
  private listeners = new Set<() => void>();
  private snap: TranscriptSnapshot | null = null;
  private readonly schedule = frameScheduler(() => this.flush());
  /** When queued events were last applied, and the timer that applies text deltas held back since. */
  private shownAt = 0;
  private deltaTimer: ReturnType<typeof setTimeout> | undefined;
  /** Items touched by the flush under way (null outside one), and whether it added any. */
  private touched: Item[] | null = null;
  private added = false;
  private readonly itemWatchers = new Map<string, Set<() => void>>();
  private readonly watchItem = (key: string, fn: () => void): (() => void) => {
    let set = this.itemWatchers.get(key);
    if (!set) this.itemWatchers.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.itemWatchers.get(key) === set) this.itemWatchers.delete(key);
    };
  };
  /** What applying events and showing them costs, in ms (a moving average over the updates). */
  private updateCost = 0;
  /** Called for events that need the user's attention, once each, when they arrive live. */
  onAttention: ((ev: EventFrame) => void) | null = null;
  /** Called when a seq gap is seen (the caller refetches from lastSeq). */
  onGap: ((after: number) => void) | null = null;

  constructor(readonly sessionId: string) {}

  get items(): Item[] {
    return this.b.items;
  }

  get session(): Session | null {
    return this.b.session;
  }

  /** The key of the item showing the event `seq` (or the nearest item before it), if held. */
  itemKeyAt(seq: number): string | null {
    const key = this.b.seqKeys.get(seq);
    if (key) return key;
    const items = this.b.items;
    for (let i = items.length - 1; i >= 0; i--) if (items[i].seq <= seq) return items[i].key;
    return null;
  }

  /** The latest prompt typed to the build agent and not taken back: what `/undo` reverts to. */
  undoTarget(): UndoTarget | null {
    const items = this.b.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === "user" && it.internal === null && !it.takenBack && it.agent !== "plan") {
        return { messageId: it.messageId, text: it.text };
      }
    }
    return null;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** Queue events; they are applied on the next frame. */
  push(events: ServerEvent[]): void {
    for (const e of events) this.queue.push(e);
    const every = Math.min(DELTA_EVERY_MAX_MS, Math.max(DELTA_EVERY_MS, UPDATE_COST_FACTOR * this.updateCost));
    const wait = every - (performance.now() - this.shownAt);
    if (wait > 0 && this.queue.every(isDelta)) {
      this.deltaTimer ??= setTimeout(() => {
        this.deltaTimer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    this.schedule();
  }

  hasQueued(): boolean {
    return this.queue.length > 0;
  }

  /** Apply queued events even across a seq hole (after a refetch could not fill it). */
  acceptGap(): void {
    this.allowGap = true;
    this.flush();
    this.allowGap = false;
  }

  /** The newest page of the session (read with `before`): applied at once. */
  loadNewest(page: EventPage): void {
    this.loaded = true;
    this.loadError = null;
    this.hasOlder = page.has_more;
    this.olderCursor = page.next_cursor;
    this.push(page.data);
    this.flush();
    this.announce();
  }

  loadFailed(message: string): void {
    this.loadError = message;
    this.announce();
  }

  /** Can a page of older events be asked for now? Marks it on its way when so. */
  beginOlder(): boolean {
    if (!this.loaded || !this.hasOlder || this.loadingOlder) return false;
    this.loadingOlder = true;
    this.olderError = null;
    this.announce();
    return true;
  }

  olderFailed(message: string): void {
    this.loadingOlder = false;
    this.olderError = message;
    this.announce();
  }

  /** A page of older events (read with `before` = `olderCursor`): the transcript is built again. */
  prepend(page: EventPage): void {
    this.flush();
    this.loadingOlder = false;
    this.olderError = null;
    this.hasOlder = page.has_more;
    this.olderCursor = Math.min(this.olderCursor, page.next_cursor);
    const bound = this.firstSeq > 0 ? this.firstSeq : this.lastSeq + 1;
    const older: ServerEvent[] = [];
    let prev = -1;
    for (const ev of [...page.data].sort((x, y) => x.seq - y.seq)) {
      if (typeof ev.seq !== "number" || ev.seq >= bound || ev.seq === prev) continue;
      older.push(ev);
      prev = ev.seq;
    }
    if (older.length > 0) {
      this.held = older.concat(this.held);
      this.firstSeq = older[0].seq;
      if (this.lastSeq === 0) this.lastSeq = older[older.length - 1].seq;
      this.rebuild();
    }
    this.announce();
  }

  /** Build everything again from the events held (tasks read over REST are kept). */
  private rebuild(): void {
    const { tasks, runMarks, usageMarks, childMarks, subagentMarks } = this.b;
    this.b = new BuildState((item) => this.touch(item));
    this.replaying = true;
    try {
      for (const ev of this.held) this.apply(ev);
    } finally {
      this.replaying = false;
    }
    // What we knew is at least as new as any event held (later events, or the REST API).
    for (const [id, t] of tasks) this.b.tasks.set(id, t);
    // Older runs change nothing that waits behind the current one: the count goes on from where it was.
    this.b.runMarks = runMarks;
    this.b.usageMarks = usageMarks;
    this.b.childMarks = childMarks;
    this.b.subagentMarks = subagentMarks;
    this.itemsChanged = false;
  }

  /** Apply queued events now. */
  flush(): void {
    clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    if (this.queue.length === 0) return;
    this.shownAt = performance.now();
    const q = this.queue;
    this.queue = [];
    q.sort((a, b) => a.seq - b.seq);
    let changed = false;
    let gap = false;
    let onlyText = true;
    this.touched = [];
    this.added = false;
    for (const ev of q) {
      if (typeof ev.seq !== "number" || ev.seq <= this.lastSeq) continue; // duplicate
      if (ev.seq > this.lastSeq + 1 && this.lastSeq > 0 && !this.allowGap) {
        // A hole: keep this and later events for after the refetch.
        gap = true;
        this.queue.push(ev);
        continue;
      }
      if (gap) {
        this.queue.push(ev);
        continue;
      }
      this.lastSeq = ev.seq;
      if (this.firstSeq === 0) this.firstSeq = ev.seq;
      this.held.push(ev);
      this.apply(ev);
      changed = true;
      if (!isDelta(ev)) onlyText = false;
    }
    const touched = this.touched;
    this.touched = null;
    if (gap && this.onGap) this.onGap(this.lastSeq);
    if (!changed) return;
    // Text added to replies already shown, and nothing else: their rows redraw alone, without a
    // new snapshot for the whole view (its header, composer and list) to render again.
    if (onlyText && !this.added && touched.every((it) => it.kind === "assistant" && this.itemWatchers.has(it.key))) {
      for (const it of new Set(touched)) this.itemWatchers.get(it.key)?.forEach((fn) => fn());
    } else {
      this.announce();
    }
    if (onlyText) this.measureUpdate();
  }

  /**
   * What showing text deltas costs. In an animation frame, the render of what was just applied,
   * its layout and its paint end the frame's task: a task queued now starts when they are done.
   */
  private measureUpdate(): void {
    if (!inAnimationFrame()) return;
    const t0 = this.shownAt;
    setTimeout(() => {
      const c = performance.now() - t0;
      this.updateCost = this.updateCost === 0 ? c : 0.7 * this.updateCost + 0.3 * c;
    });
  }

  snapshot(): TranscriptSnapshot {
    if (this.snap) return this.snap;
    const b = this.b;
    const pendingApprovals = [...b.approvals.values()].filter((a) => a.decision === null && !a.expired);
    const pendingQuestions = [...b.questions.values()].filter((q) => q.answers === null && !q.expired);
    const pendingPlans = [...b.plans.values()].filter((p) => p.decision === null && !p.expired);
    this.snap = {
      version: this.version,
      watchItem: this.watchItem,
      lastSeq: this.lastSeq,
      items: b.items,
      activeRun: b.activeRunId ? (b.runs.get(b.activeRunId) ?? null) : null,
      pendingApprovals,
      pendingQuestions,
      pendingPlans,
      plans: [...b.plans.values()],
      tasks: [...b.tasks.values()].sort((x, y) => (y.created_at ?? 0) - (x.created_at ?? 0) || (x.id < y.id ? 1 : -1)),
      session: b.session,
      runMarks: b.runMarks,
      usageMarks: b.usageMarks,
      childPrompts: b.childPrompts,
      childMarks: b.childMarks,
      subagentMarks: b.subagentMarks,
      context: b.context,
      goal: b.goal,
      loaded: this.loaded,
      loadError: this.loadError,
      hasOlder: this.hasOlder,
      loadingOlder: this.loadingOlder,
      olderError: this.olderError,
    };
    return this.snap;
  }

  /** Tasks from the REST list: added when the event stream has not described them yet. */
  mergeTasks(list: Task[]): void {
    let changed = false;
    for (const t of list) {
      if (t && typeof t.id === "string" && !this.b.tasks.has(t.id)) {
        this.b.tasks.set(t.id, t);
        changed = true;
      }
    }
    if (changed) this.announce();
  }

  /** A task state read from the REST API (e.g. the answer to stop). */
  updateTask(t: Task): void {
    const cur = this.b.tasks.get(t.id);
    if (cur && LIVE_TASK.has(t.status) && !LIVE_TASK.has(cur.status)) return;
    this.b.tasks.set(t.id, t);
    this.announce();
  }

  private announce(): void {
    // Items are compared by identity in lists; a new array makes the list re-render.
    if (this.itemsChanged) {
      this.b.items = this.b.items.slice();
      this.itemsChanged = false;
    }
    this.version++;
    this.snap = null;
    this.listeners.forEach((fn) => fn());
  }

  private add<T extends Item>(item: T): T {
    this.b.items.push(item);
    this.itemsChanged = true;
    this.added = true;
    if (item.run) {
      let list = this.b.runItems.get(item.run);
      if (!list) this.b.runItems.set(item.run, (list = []));
      list.push(item);
    }
    return item;
  }

  /** The run's retry line (if any) stops counting down. */
  private retryOver(run: string | null, failed = false): void {
    const r = this.b.retries.get(`retry:${run ?? "none"}`);
    if (r && (!r.over || (failed && !r.failed))) {
      r.over = true;
      r.failed = failed;
      this.touch(r);
    }
  }

  /** The run's retry line, created on its first retry. */
  private retryLine(ev: FrameHeader): RetryItem {
    const key = `retry:${ev.run ?? "none"}`;
    let r = this.b.retries.get(key);
    if (!r) {
      r = this.add<RetryItem>({
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
      this.b.retries.set(key, r);
    }
    return r;
  }

  private touch(item: Item): void {
    item.v++;
    this.itemsChanged = true;
    this.touched?.push(item);
  }

  private run(id: string): RunState {
    let r = this.b.runs.get(id);
    if (!r) {
      r = { id, started: null, finished: null, prompt: null, superseded: false, seen: false };
      this.b.runs.set(id, r);
    }
    return r;
  }

  private assistant(ev: FrameHeader, messageId: string): AssistantItem {
    let m = this.b.messages.get(messageId);
    if (!m) {
      m = this.add<AssistantItem>({
        kind: "assistant",
        key: `m:${messageId}`,
        seq: ev.seq,
        run: ev.run ?? null,
        v: 0,
        messageId,
        text: "",
        reasoning: "",
        complete: false,
        at: typeof ev.at === "number" ? ev.at : 0,
      });
      this.b.messages.set(messageId, m);
    }
    return m;
  }

  private tool(ev: EventOf<"tool_call" | "tool_result">, callId: string): ToolItem {
    let t = this.b.tools.get(callId);
    if (!t) {
      t = this.add<ToolItem>({
        kind: "tool",
        key: `t:${callId}`,
        seq: ev.seq,
        run: ev.run ?? null,
        v: 0,
        callId,
        tool: str(ev.tool) || "tool",
        effect: ev.type === "tool_call" ? str(ev.effect) : "",
        input: ev.type === "tool_call" ? (ev.input ?? null) : null,
        decision: null,
        decisionReason: null,
        approvalId: null,
        result: null,
        runEnded: false,
      });
      this.b.tools.set(callId, t);
    }
    return t;
  }

  private expireRun(runId: string | null): void {
    if (!runId) return;
    const b = this.b;
    for (const a of b.approvals.values()) if (a.run === runId && a.decision === null) a.expired = true;
    for (const q of b.questions.values()) if (q.run === runId && q.answers === null) q.expired = true;
    for (const p of b.plans.values()) if (p.run === runId && p.decision === null) p.expired = true;
    for (const it of b.runItems.get(runId) ?? []) {
      if (
        (it.kind === "approval" && it.approval.run === runId) ||
        (it.kind === "question" && it.question.run === runId) ||
        (it.kind === "plan" && it.plan.run === runId)
      ) {
        this.touch(it);
      }
    }
  }

  /**
   * An event of a run whose start we have not seen (it is older than the events held): the run
   * did run, and it still runs unless its end follows.
   */
  private sawRunEvent(ev: ServerEvent, run: string): void {
    if (!IN_RUN.has(ev.type)) return;
    const r = this.b.runs.get(run);
    if (r && (r.started || r.seen)) return;
    const rs = r ?? this.run(run);
    rs.seen = true;
    if (!rs.finished && !this.b.activeRunId) this.b.activeRunId = run;
  }

  /** Only events that arrive, not those replayed by a rebuild, may ask for the user's attention. */
  private attention(ev: EventFrame): void {
    if (!this.replaying) this.onAttention?.(ev);
  }

  private apply(ev: ServerEvent): void {
    // Unknown event types only advance the seq.
    if (!isKnownEvent(ev)) return;
    const run = ev.run ?? null;
    const b = this.b;
    if (run) this.sawRunEvent(ev, run);
    const shownBy = (key: string) => {
      if (SEARCHABLE.has(ev.type)) b.seqKeys.set(ev.seq, key);
    };
    switch (ev.type) {
      case "user_message": {
        const rs = run ? b.runs.get(run) : undefined;
        const origin = ev.origin ?? rs?.started?.trigger;
        const internal = origin === "plan" || origin === "wakeup" || origin === "resume" || origin === "goal" ? origin : null;
        if (rs && !internal) rs.prompt = str(ev.text);
        // A goal turn is the one after those its goal has counted (the count arrives after each).
        let goalTurn: number | null = null;
        if (internal === "goal" && b.goalTurns !== null) {
          goalTurn = b.goalTurns + 1;
          b.goalTurns = goalTurn;
        }
        const messageId = str(ev.message_id);
        const u = this.add<UserItem>({
          kind: "user",
          key: `u:${messageId || ev.seq}`,
          seq: ev.seq,
          run,
          v: 0,
          messageId,
          text: str(ev.text),
          at: ev.at,
          internal,
          goalTurn,
          images: Array.isArray(ev.images) ? ev.images : [],
          // A subagent's task was written by its parent agent, not typed: nothing to edit and resend.
          editable: !internal && origin !== "command" && origin !== "task" && !str(ev.text).startsWith("!"),
          agent: rs?.started?.agent ?? null,
          sessionId: this.sessionId,
        });
        if (messageId) b.userItems.set(messageId, u);
        shownBy(u.key);
        break;
      }
      case "run_started": {
        const id = str(ev.run_id) || run || `seq${ev.seq}`;
        const r = this.run(id);
        r.started = ev;
        b.activeRunId = id;
        b.runMarks++;
        b.reverts.runStarted(ev.seq);
        for (const it of b.runEnds) {
          if (it.runState !== r && !it.runState.superseded) {
            it.runState.superseded = true;
            this.touch(it);
          }
        }
        this.add<RunStartItem>({ kind: "run_start", key: `rs:${id}`, seq: ev.seq, run: id, v: 0, runState: r });
        break;
      }
      case "message_delta": {
        this.retryOver(run);
        const m = this.assistant(ev, str(ev.message_id));
        m.text += str(ev.text);
        this.touch(m);
        break;
      }
      case "reasoning_delta": {
        const m = this.assistant(ev, str(ev.message_id));
        m.reasoning += str(ev.text);
        this.touch(m);
        break;
      }
      case "message_complete": {
        const m = this.assistant(ev, str(ev.message_id));
        if (typeof ev.text === "string") m.text = ev.text;
        if (typeof ev.reasoning === "string" && ev.reasoning) m.reasoning = ev.reasoning;
        m.complete = true;
        this.touch(m);
        shownBy(m.key);
        break;
      }
      case "tool_call": {
        const t = this.tool(ev, str(ev.call_id));
        t.tool = str(ev.tool) || t.tool;
        t.effect = str(ev.effect) || t.effect;
        t.input = ev.input ?? t.input;
        this.touch(t);
        shownBy(t.key);
        break;
      }
      case "policy_decision": {
        const t = b.tools.get(str(ev.call_id));
        if (t) {
          const d = str(ev.decision);
          t.decision = d === "allow" || d === "ask" || d === "deny" ? d : null;
          t.decisionReason = typeof ev.reason === "string" ? ev.reason : null;
          this.touch(t);
        }
        break;
      }
      case "approval_requested": {
        const a: ApprovalState = {
          id: ev.approval_id,
          seq: ev.seq,
          run,
          event: ev,
          decision: null,
          expired: false,
        };
        b.approvals.set(a.id, a);
        const t = b.tools.get(str(ev.call_id));
        if (t) {
          t.approvalId = a.id;
          this.touch(t);
        }
        b.approvalItems.set(a.id, this.add<ApprovalItem>({ kind: "approval", key: `a:${a.id}`, seq: ev.seq, run, v: 0, approval: a }));
        this.attention(ev);
        break;
      }
      case "approval_decided": {
        const a = b.approvals.get(str(ev.approval_id));
        if (a) {
          a.decision = str(ev.decision) || "decided";
          const item = b.approvalItems.get(a.id);
          if (item) this.touch(item);
        }
        break;
      }
      case "tool_result": {
        const t = this.tool(ev, str(ev.call_id));
        t.result = {
          ok: ev.ok !== false,
          text: str(ev.text),
          parts: Array.isArray(ev.parts) ? ev.parts : [],
        };
        if (SUBAGENT_TOOLS.has(t.tool)) b.subagentMarks++;
        this.touch(t);
        shownBy(t.key);
        break;
      }
      case "question_asked": {
        const q: QuestionState = {
          id: str(ev.question_id),
          seq: ev.seq,
          run,
          questions: Array.isArray(ev.questions) ? ev.questions : [],
          answers: null,
          expired: false,
        };
        if (b.questions.has(q.id)) break;
        b.questions.set(q.id, q);
        b.questionItems.set(q.id, this.add<QuestionItem>({ kind: "question", key: `q:${q.id}`, seq: ev.seq, run, v: 0, question: q }));
        this.attention(ev);
        break;
      }
      case "question_answered": {
        const q = b.questions.get(str(ev.question_id));
        if (q) {
          // Read defensively: a bare label counts as a one-label answer.
          const answers: readonly unknown[] = Array.isArray(ev.answers) ? ev.answers : [];
          q.answers = answers.map((a) => (Array.isArray(a) ? a.map(String) : typeof a === "string" ? [a] : null));
          const item = b.questionItems.get(q.id);
          if (item) this.touch(item);
        }
        break;
      }
      case "plan_proposed": {
        // Each revision is its own artifact; a session's plan revisions form one series.
        const artifact = "plan";
        let revisions = b.planRevisions.get(artifact);
        if (!revisions) {
          revisions = [];
          b.planRevisions.set(artifact, revisions);
        }
        const p: PlanState = {
          id: str(ev.plan_id),
          seq: ev.seq,
          run,
          event: ev,
          decision: null,
          feedback: null,
          expired: false,
          revisions,
        };
        if (b.plans.has(p.id)) break;
        revisions.push(p);
        // Earlier revisions offer the newer ones in their picker.
        for (const it of b.planItems.values()) if (it.plan.revisions === revisions) this.touch(it);
        b.plans.set(p.id, p);
        b.planItems.set(p.id, this.add<PlanItem>({ kind: "plan", key: `p:${p.id}`, seq: ev.seq, run, v: 0, plan: p }));
        this.attention(ev);
        break;
      }
      case "plan_decided": {
        const p = b.plans.get(str(ev.plan_id));
        if (p) {
          p.decision = str(ev.decision) || "decided";
          p.feedback = typeof ev.feedback === "string" ? ev.feedback : null;
          const item = b.planItems.get(p.id);
          if (item) this.touch(item);
        }
        break;
      }
      case "child_pending": {
        // The prompt itself is read over REST (`pending`); the event says when to read it again.
        b.childPrompts.set(ev.id, ev.status);
        b.childMarks++;
        b.subagentMarks++;
        if (ev.status === "pending") this.attention(ev);
        break;
      }
      case "task_updated": {
        const task = ev.task;
        if (task && typeof task.id === "string") b.tasks.set(task.id, task);
        break;
      }
      case "wakeup": {
        this.add<WakeupItem>({
          kind: "wakeup",
          key: `w:${ev.seq}`,
          seq: ev.seq,
          run,
          v: 0,
          text: str(ev.text),
          taskIds: Array.isArray(ev.task_ids) ? ev.task_ids : [],
        });
        break;
      }
      case "run_finished": {
        this.retryOver(run, ev.status === "failed");
        const id = run || str(ev.run_id) || b.activeRunId || `seq${ev.seq}`;
        const r = this.run(id);
        r.finished = ev;
        const code = ev.error?.code;
        if (b.activeRunId === id) b.activeRunId = null;
        b.runMarks++;
        b.usageMarks++;
        b.subagentMarks++;
        this.expireRun(id);
        for (const it of b.runItems.get(id) ?? []) {
          if (it.kind === "tool" && !it.result && !it.runEnded) {
            it.runEnded = true;
            this.touch(it);
          }
          if (it.kind === "run_start" && it.runState === r) this.touch(it);
          if (it.kind === "assistant" && !it.complete) {
            it.complete = true;
            this.touch(it);
          }
          if (it.kind === "notice" && code && it.code === code && !it.shownAtEnd) {
            it.shownAtEnd = true;
            this.touch(it);
          }
        }
        // A queued input removed (or dropped) before it started: nothing ran, nothing to show.
        // (A run whose start is in a page not loaded yet did run: its events were seen.)
        if (!r.started && !r.seen) break;
        b.runEnds.push(this.add<RunEndItem>({ kind: "run_end", key: `re:${id}:${ev.seq}`, seq: ev.seq, run: id, v: 0, runState: r }));
        break;
      }
      case "provider_retry": {
        const r = this.retryLine(ev);
        r.attempt = ev.attempt;
        r.maxAttempts = ev.max_attempts;
        r.at = ev.at;
        r.delayMs = ev.delay_ms;
        r.reason = ev.reason;
        this.touch(r);
        break;
      }
      case "error": {
        if (ev.code === "provider_retry") {
          // An older server's retry announcement: it belongs on the run's one retry line.
          const r = this.retryLine(ev);
          r.attempt++;
          r.at = ev.at;
          r.reason = str(ev.message);
          this.touch(r);
          break;
        }
        this.add<NoticeItem>({
          kind: "notice",
          key: `e:${ev.seq}`,
          seq: ev.seq,
          run,
          v: 0,
          code: str(ev.code) || "error",
          message: str(ev.message),
          // The run ends with this error and its end shows it: not twice.
          shownAtEnd: ev.fatal === true,
        });
        break;
      }
      case "model_usage": {
        // A summary call's prompt is not the conversation: its fill comes with context_compacted.
        if (ev.purpose !== "compaction") b.context = { tokens: ev.context_tokens, window: ev.context_window };
        b.usageMarks++;
        break;
      }
      case "context_compacted": {
        b.context = { tokens: ev.tokens_after, window: ev.context_window };
        b.usageMarks++;
        this.add<CompactionItem>({
          kind: "compaction",
          key: `c:${ev.seq}`,
          seq: ev.seq,
          run,
          v: 0,
          trigger: ev.trigger,
          summary: str(ev.summary),
          messagesSummarized: ev.messages_summarized,
          messagesKept: ev.messages_kept,
          tokensBefore: ev.tokens_before,
          tokensAfter: ev.tokens_after,
          costUsd: ev.usage?.cost_usd ?? null,
          prunedOutputs: ev.pruned_outputs ?? 0,
        });
        break;
      }
      case "session_reverted": {
        const prompt = b.userItems.get(ev.message_id)?.text ?? "";
        b.reverts.reverted(this.add(revertItem(ev, prompt, this.sessionId)));
        break;
      }
      case "revert_undone": {
        b.reverts.undone(ev.revert_id, Array.isArray(ev.files) ? ev.files : []);
        break;
      }
      case "goal_updated": {
        const goal = ev.goal ?? null;
        b.goal = { goal, seq: ev.seq };
        b.goalTurns = goal ? goal.budget.used_turns : null;
        break;
      }
      case "session_updated": {
        const s = ev.data;
        if (s && typeof s.id === "string") {
          // A new cap (an unknown old one counts as none) changes what the header shows.
          if ((b.session?.spend_cap_usd ?? null) !== (s.spend_cap_usd ?? null)) b.usageMarks++;
          b.session = s;
        }
        break;
      }
      default:
        // Unknown and audit-only event types are ignored.
        break;
    }
  }
}
