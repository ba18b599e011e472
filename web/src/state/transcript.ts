// The transcript of one session, built by applying events in seq order.
// Items are mutated in place and carry a version `v` so views can skip
// re-rendering what did not change; all events that arrive within one
// animation frame are applied together and announced once.
import { isKnownEvent } from "../api/events";
import type {
  ApprovalRequestedEvent,
  EventFrame,
  EventOf,
  FrameHeader,
  Part,
  PlanProposedEvent,
  Question,
  QuestionAnswers,
  RunFinishedEvent,
  RunStartedEvent,
  ServerEvent,
  Session,
  Task,
} from "../api/types";
import { frameScheduler } from "./frame";

interface ItemBase {
  key: string;
  seq: number;
  run: string | null;
  v: number;
}

export interface UserItem extends ItemBase {
  kind: "user";
  text: string;
  /** When the server received it (ms since the epoch). */
  at: number;
  /**
   * Not typed by the user: the prompt the server wrote to start an implementation run (`plan`),
   * a wake-up (`wakeup`) or a resumed run (`resume`): the event's `origin`, or else the trigger
   * of its run (older servers).
   */
  internal: "plan" | "wakeup" | "resume" | null;
  /** Typed by the user as a prompt (not a `!command`, not internal): it can be edited and resent. */
  editable: boolean;
  sessionId: string;
}

export interface AssistantItem extends ItemBase {
  kind: "assistant";
  messageId: string;
  text: string;
  reasoning: string;
  complete: boolean;
  /** When its first part arrived (ms since the epoch). */
  at: number;
}

export interface ToolResult {
  ok: boolean;
  text: string;
  parts: Part[];
}

export interface ToolItem extends ItemBase {
  kind: "tool";
  callId: string;
  tool: string;
  effect: string;
  input: unknown;
  decision: "allow" | "ask" | "deny" | null;
  decisionReason: string | null;
  approvalId: string | null;
  result: ToolResult | null;
  /** Its run finished before a result came: it waits for nothing any more. */
  runEnded: boolean;
}

export interface ApprovalState {
  id: string;
  seq: number;
  run: string | null;
  event: ApprovalRequestedEvent;
  decision: string | null;
  /** The run ended before a decision was recorded. */
  expired: boolean;
}

export interface ApprovalItem extends ItemBase {
  kind: "approval";
  approval: ApprovalState;
}

export interface RunState {
  id: string;
  started: RunStartedEvent | null;
  finished: RunFinishedEvent | null;
  /** What the user sent to start it (prompt or `!command`), for Retry. */
  prompt: string | null;
  /** A later run has started since: Retry is offered on the latest run only. */
  superseded: boolean;
}

export interface RunEndItem extends ItemBase {
  kind: "run_end";
  runState: RunState;
}

export interface RunStartItem extends ItemBase {
  kind: "run_start";
  runState: RunState;
}

export interface QuestionState {
  id: string;
  seq: number;
  run: string | null;
  questions: Question[];
  answers: QuestionAnswers | null;
  expired: boolean;
}

export interface QuestionItem extends ItemBase {
  kind: "question";
  question: QuestionState;
}

export interface PlanState {
  id: string;
  seq: number;
  run: string | null;
  event: PlanProposedEvent;
  decision: string | null;
  feedback: string | null;
  expired: boolean;
  /** Every plan revision seen in this session, oldest first (shared array). */
  revisions: PlanState[];
}

export interface PlanItem extends ItemBase {
  kind: "plan";
  plan: PlanState;
}

export interface WakeupItem extends ItemBase {
  kind: "wakeup";
  text: string;
  taskIds: string[];
}

export interface NoticeItem extends ItemBase {
  kind: "notice";
  code: string;
  message: string;
  /** The run then ended with this same error: its end shows it, once. */
  shownAtEnd: boolean;
}

/** The provider is being retried: one line per run, updated in place by each new wait. */
export interface RetryItem extends ItemBase {
  kind: "retry";
  attempt: number;
  maxAttempts: number;
  /** When the current wait began and how long it lasts (ms since the epoch, ms). */
  at: number;
  delayMs: number;
  reason: string;
  /** The model answered (or the run ended): the waiting is over. */
  over: boolean;
  /** The run ended in failure: the retries gave up. */
  failed: boolean;
}

export type Item =
  | RetryItem
  | NoticeItem
  | UserItem
  | AssistantItem
  | ToolItem
  | ApprovalItem
  | RunStartItem
  | RunEndItem
  | QuestionItem
  | PlanItem
  | WakeupItem;

export interface TranscriptSnapshot {
  version: number;
  lastSeq: number;
  items: Item[];
  activeRun: RunState | null;
  pendingApprovals: ApprovalState[];
  pendingQuestions: QuestionState[];
  pendingPlans: PlanState[];
  /** Every plan revision of the session, oldest first. */
  plans: PlanState[];
  /** Newest first. */
  tasks: Task[];
  session: Session | null;
  /** Counts run_started and run_finished events: what waits behind a run changes with them. */
  runMarks: number;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

export const LIVE_TASK = new Set(["queued", "running", "stopping"]);

export class Transcript {
  lastSeq = 0;
  version = 0;
  items: Item[] = [];
  session: Session | null = null;
  private retries = new Map<string, RetryItem>();
  private messages = new Map<string, AssistantItem>();
  private tools = new Map<string, ToolItem>();
  private runs = new Map<string, RunState>();
  private approvals = new Map<string, ApprovalState>();
  private questions = new Map<string, QuestionState>();
  private plans = new Map<string, PlanState>();
  private tasks = new Map<string, Task>();
  private planRevisions = new Map<string, PlanState[]>();
  private activeRunId: string | null = null;
  private runMarks = 0;
  private allowGap = false;
  private queue: ServerEvent[] = [];
  private listeners = new Set<() => void>();
  private snap: TranscriptSnapshot | null = null;
  private readonly schedule = frameScheduler(() => this.flush());
  /** Called for events that need the user's attention, once each, when they arrive live. */
  onAttention: ((ev: EventFrame) => void) | null = null;
  /** Called when a seq gap is seen (the caller refetches from lastSeq). */
  onGap: ((after: number) => void) | null = null;

  constructor(readonly sessionId: string) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** Queue events; they are applied on the next frame. */
  push(events: ServerEvent[]): void {
    for (const e of events) this.queue.push(e);
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

  /** Apply queued events now. */
  flush(): void {
    if (this.queue.length === 0) return;
    const q = this.queue;
    this.queue = [];
    q.sort((a, b) => a.seq - b.seq);
    let changed = false;
    let gap = false;
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
      this.apply(ev);
      changed = true;
    }
    if (gap && this.onGap) this.onGap(this.lastSeq);
    if (changed) {
      this.version++;
      this.snap = null;
      this.listeners.forEach((fn) => fn());
    }
  }

  snapshot(): TranscriptSnapshot {
    if (this.snap) return this.snap;
    const pendingApprovals = [...this.approvals.values()].filter(
      (a) => a.decision === null && !a.expired,
    );
    const pendingQuestions = [...this.questions.values()].filter(
      (q) => q.answers === null && !q.expired,
    );
    const pendingPlans = [...this.plans.values()].filter((p) => p.decision === null && !p.expired);
    this.snap = {
      version: this.version,
      lastSeq: this.lastSeq,
      items: this.items,
      activeRun: this.activeRunId ? (this.runs.get(this.activeRunId) ?? null) : null,
      pendingApprovals,
      pendingQuestions,
      pendingPlans,
      plans: [...this.plans.values()],
      tasks: [...this.tasks.values()].sort((a, b) => (b.created_at ?? 0) - (a.created_at ?? 0) || (a.id < b.id ? 1 : -1)),
      session: this.session,
      runMarks: this.runMarks,
    };
    return this.snap;
  }

  /** Tasks from the REST list: added when the event stream has not described them yet. */
  mergeTasks(list: Task[]): void {
    let changed = false;
    for (const t of list) {
      if (t && typeof t.id === "string" && !this.tasks.has(t.id)) {
        this.tasks.set(t.id, t);
        changed = true;
      }
    }
    if (changed) this.announce();
  }

  /** A task state read from the REST API (e.g. the answer to stop). */
  updateTask(t: Task): void {
    const cur = this.tasks.get(t.id);
    if (cur && LIVE_TASK.has(t.status) && !LIVE_TASK.has(cur.status)) return;
    this.tasks.set(t.id, t);
    this.announce();
  }

  private announce(): void {
    this.version++;
    this.snap = null;
    this.listeners.forEach((fn) => fn());
  }

  private add<T extends Item>(item: T): T {
    this.items.push(item);
    return item;
  }

  /** The run's retry line (if any) stops counting down. */
  private retryOver(run: string | null, failed = false): void {
    const r = this.retries.get(`retry:${run ?? "none"}`);
    if (r && (!r.over || (failed && !r.failed))) {
      r.over = true;
      r.failed = failed;
      this.touch(r);
    }
  }

  /** The run's retry line, created on its first retry. */
  private retryLine(ev: FrameHeader): RetryItem {
    const key = `retry:${ev.run ?? "none"}`;
    let r = this.retries.get(key);
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
      this.retries.set(key, r);
    }
    return r;
  }

  private touch(item: Item): void {
    item.v++;
    // Items are compared by identity in lists; a new array makes the list re-render.
    this.items = this.items.slice();
  }

  private run(id: string): RunState {
    let r = this.runs.get(id);
    if (!r) {
      r = { id, started: null, finished: null, prompt: null, superseded: false };
      this.runs.set(id, r);
    }
    return r;
  }

  private assistant(ev: FrameHeader, messageId: string): AssistantItem {
    let m = this.messages.get(messageId);
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
      this.messages.set(messageId, m);
    }
    return m;
  }

  private tool(ev: EventOf<"tool_call" | "tool_result">, callId: string): ToolItem {
    let t = this.tools.get(callId);
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
      this.tools.set(callId, t);
    }
    return t;
  }

  private expireRun(runId: string | null): void {
    if (!runId) return;
    for (const a of this.approvals.values()) if (a.run === runId && a.decision === null) a.expired = true;
    for (const q of this.questions.values()) if (q.run === runId && q.answers === null) q.expired = true;
    for (const p of this.plans.values()) if (p.run === runId && p.decision === null) p.expired = true;
    for (const it of this.items) {
      if (
        (it.kind === "approval" && it.approval.run === runId) ||
        (it.kind === "question" && it.question.run === runId) ||
        (it.kind === "plan" && it.plan.run === runId)
      ) {
        it.v++;
      }
    }
  }

  private apply(ev: ServerEvent): void {
    // Unknown event types only advance the seq.
    if (!isKnownEvent(ev)) return;
    const run = ev.run ?? null;
    switch (ev.type) {
      case "user_message": {
        const rs = run ? this.runs.get(run) : undefined;
        const origin = ev.origin ?? rs?.started?.trigger;
        const internal = origin === "plan" || origin === "wakeup" || origin === "resume" ? origin : null;
        if (rs && !internal) rs.prompt = str(ev.text);
        this.add<UserItem>({
          kind: "user",
          key: `u:${str(ev.message_id) || ev.seq}`,
          seq: ev.seq,
          run,
          v: 0,
          text: str(ev.text),
          at: ev.at,
          internal,
          editable: !internal && origin !== "command" && !str(ev.text).startsWith("!"),
          sessionId: this.sessionId,
        });
        this.items = this.items.slice();
        break;
      }
      case "run_started": {
        const id = str(ev.run_id) || run || `seq${ev.seq}`;
        const r = this.run(id);
        r.started = ev;
        this.activeRunId = id;
        this.runMarks++;
        for (const it of this.items) {
          if (it.kind === "run_end" && it.runState !== r && !it.runState.superseded) {
            it.runState.superseded = true;
            it.v++;
          }
        }
        this.add<RunStartItem>({ kind: "run_start", key: `rs:${id}`, seq: ev.seq, run: id, v: 0, runState: r });
        this.items = this.items.slice();
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
        break;
      }
      case "tool_call": {
        const t = this.tool(ev, str(ev.call_id));
        t.tool = str(ev.tool) || t.tool;
        t.effect = str(ev.effect) || t.effect;
        t.input = ev.input ?? t.input;
        this.touch(t);
        break;
      }
      case "policy_decision": {
        const t = this.tools.get(str(ev.call_id));
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
        this.approvals.set(a.id, a);
        const t = this.tools.get(str(ev.call_id));
        if (t) {
          t.approvalId = a.id;
          this.touch(t);
        }
        this.add<ApprovalItem>({ kind: "approval", key: `a:${a.id}`, seq: ev.seq, run, v: 0, approval: a });
        this.items = this.items.slice();
        this.onAttention?.(ev);
        break;
      }
      case "approval_decided": {
        const a = this.approvals.get(str(ev.approval_id));
        if (a) {
          a.decision = str(ev.decision) || "decided";
          const item = this.items.find((i) => i.kind === "approval" && i.approval === a);
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
        this.touch(t);
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
        if (this.questions.has(q.id)) break;
        this.questions.set(q.id, q);
        this.add<QuestionItem>({ kind: "question", key: `q:${q.id}`, seq: ev.seq, run, v: 0, question: q });
        this.items = this.items.slice();
        this.onAttention?.(ev);
        break;
      }
      case "question_answered": {
        const q = this.questions.get(str(ev.question_id));
        if (q) {
          // Read defensively: a bare label counts as a one-label answer.
          const answers: readonly unknown[] = Array.isArray(ev.answers) ? ev.answers : [];
          q.answers = answers.map((a) => (Array.isArray(a) ? a.map(String) : typeof a === "string" ? [a] : null));
          const item = this.items.find((i) => i.kind === "question" && i.question === q);
          if (item) this.touch(item);
        }
        break;
      }
      case "plan_proposed": {
        // Each revision is its own artifact; a session's plan revisions form one series.
        const artifact = "plan";
        let revisions = this.planRevisions.get(artifact);
        if (!revisions) {
          revisions = [];
          this.planRevisions.set(artifact, revisions);
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
        if (this.plans.has(p.id)) break;
        revisions.push(p);
        // Earlier revisions offer the newer ones in their picker.
        for (const it of this.items) if (it.kind === "plan" && it.plan.revisions === revisions) it.v++;
        this.plans.set(p.id, p);
        this.add<PlanItem>({ kind: "plan", key: `p:${p.id}`, seq: ev.seq, run, v: 0, plan: p });
        this.items = this.items.slice();
        this.onAttention?.(ev);
        break;
      }
      case "plan_decided": {
        const p = this.plans.get(str(ev.plan_id));
        if (p) {
          p.decision = str(ev.decision) || "decided";
          p.feedback = typeof ev.feedback === "string" ? ev.feedback : null;
          const item = this.items.find((i) => i.kind === "plan" && i.plan === p);
          if (item) this.touch(item);
        }
        break;
      }
      case "task_updated": {
        const task = ev.task;
        if (task && typeof task.id === "string") this.tasks.set(task.id, task);
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
        this.items = this.items.slice();
        break;
      }
      case "run_finished": {
        this.retryOver(run, ev.status === "failed");
        const id = run || str(ev.run_id) || this.activeRunId || `seq${ev.seq}`;
        const r = this.run(id);
        r.finished = ev;
        const code = ev.error?.code;
        if (this.activeRunId === id) this.activeRunId = null;
        this.runMarks++;
        this.expireRun(id);
        for (const it of this.items) {
          if (it.kind === "tool" && it.run === id && !it.result && !it.runEnded) {
            it.runEnded = true;
            it.v++;
          }
          if (it.kind === "run_start" && it.runState === r) it.v++;
          if (it.kind === "assistant" && it.run === id && !it.complete) {
            it.complete = true;
            it.v++;
          }
          if (it.kind === "notice" && it.run === id && code && it.code === code && !it.shownAtEnd) {
            it.shownAtEnd = true;
            it.v++;
          }
        }
        // A queued input removed (or dropped) before it started: nothing ran, nothing to show.
        if (!r.started) break;
        this.add<RunEndItem>({ kind: "run_end", key: `re:${id}:${ev.seq}`, seq: ev.seq, run: id, v: 0, runState: r });
        this.items = this.items.slice();
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
        this.items = this.items.slice();
        break;
      }
      case "session_updated": {
        const s = ev.data;
        if (s && typeof s.id === "string") this.session = s;
        break;
      }
      default:
        // Unknown and audit-only event types are ignored.
        break;
    }
  }
}
