// What a transcript is made of: the items a session's events build (one per message, tool call,
// card, run boundary or note) and the shared state they point to (runs, approvals, questions,
// plans). Built by `reduce` (reduce.ts); read by the components.
import type {
  Agent,
  ApprovalOutcome,
  ApprovalRequestedEvent,
  ChildPendingStatus,
  Citation,
  CompactTrigger,
  Effect,
  Goal,
  ImageRef,
  Part,
  PlanDecision,
  PlanProposedEvent,
  PolicyDecision,
  Question,
  QuestionAnswers,
  RevertFile,
  ReviewComment,
  RunFinishedEvent,
  RunStartedEvent,
  Session,
  Task,
  WebSource,
} from "../api/types";
import type { LiveOutput } from "./output";

export interface ItemBase {
  key: string;
  seq: number;
  run: string | null;
  v: number;
  /**
   * Its run is taken back by a revert in force (the model no longer sees it): `lead` on the first
   * item of the run shown, which carries the label, `rest` on the others; absent otherwise.
   */
  takenBack?: "lead" | "rest";
}

export interface UserItem extends ItemBase {
  kind: "user";
  /** The event's `message_id`: what a revert to before this message names. */
  messageId: string;
  text: string;
  /** When the server received it (ms since the epoch). */
  at: number;
  /**
   * Not typed by the user: the prompt the server wrote to start an implementation run (`plan`),
   * a wake-up (`wakeup`), a resumed run (`resume`) or a turn towards the session's goal
   * (`goal`): the event's `origin`, or else the trigger of its run (older servers).
   */
  internal: "plan" | "wakeup" | "resume" | "goal" | null;
  /** Which turn of its goal a `goal` prompt starts (1 = the first; null: not known from the events held). */
  goalTurn: number | null;
  /** Images sent with it. */
  images: ImageRef[];
  /**
   * Sent while the run worked and taken at its next tool call (`delivery: steer`): the id of the
   * queued run it was sent as (null: it started its own run, or came first in it).
   */
  steeredFrom: string | null;
  /** Typed by the user as a prompt (not a `!command`, not internal, not a subagent's task): it can be edited and resent. */
  editable: boolean;
  /** The agent of its run (null: its `run_started` is not held). Only build runs can be reverted. */
  agent: Agent | null;
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
  /** The pages the answer cites (the provider's own web search). */
  citations: Citation[];
  /** The prompt Regenerate sends again: set on the last finished answer only, when it can be. */
  regenerate?: UserItem;
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
  /** null: its `tool_call` is not held (only its result is). */
  effect: Effect | null;
  input: unknown;
  decision: PolicyDecision | null;
  decisionReason: string | null;
  approvalId: string | null;
  /** The user's answer to its approval (null: none was asked, or it waits for one). */
  approval: ApprovalOutcome | null;
  /**
   * What the command wrote while it ran (`tool_output`), until its result brings the whole
   * output (null: nothing came, or the result did).
   */
  output: LiveOutput | null;
  result: ToolResult | null;
  /** Its run finished before a result came: it waits for nothing any more. */
  runEnded: boolean;
}

export interface ApprovalState {
  id: string;
  seq: number;
  run: string | null;
  event: ApprovalRequestedEvent;
  decision: ApprovalOutcome | null;
  /** What the user told the agent with a denial (null: nothing, or not a denial). */
  reason: string | null;
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
  /**
   * Events of the run were seen while its `run_started` was not (it is in an older page not
   * loaded yet): the run did run, whatever `started` says.
   */
  seen: boolean;
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
  /** Why nobody answered, when the server says ("not answered — the server restarted"). */
  reason: string | null;
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
  decision: PlanDecision | null;
  feedback: string | null;
  expired: boolean;
  /** Why nobody decided, when the server says ("not answered — the server restarted"). */
  reason: string | null;
  /** Every plan revision seen in this session, oldest first (shared array). */
  revisions: PlanState[];
  /** The line comments on this revision, oldest first. */
  comments: readonly ReviewComment[];
}

export interface PlanItem extends ItemBase {
  kind: "plan";
  plan: PlanState;
}

/** A web search the model's provider ran on its side (`websearch.provider: "native"`). */
export interface WebSearchItem extends ItemBase {
  kind: "web_search";
  searchId: string;
  provider: string;
  query: string;
  status: string;
  results: WebSource[];
  error: string | null;
}

/** A hook ran (`hooks.json`): for a call, or for the user's prompt. */
export interface HookItem extends ItemBase {
  kind: "hook";
  event: string;
  command: string;
  tool: string | null;
  outcome: string;
  reason: string | null;
  durationMs: number;
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

/** Older turns were summarised (`context_compacted`): what was summarised, and the summary. */
export interface CompactionItem extends ItemBase {
  kind: "compaction";
  trigger: CompactTrigger;
  summary: string;
  messagesSummarized: number;
  messagesKept: number;
  tokensBefore: number;
  tokensAfter: number;
  /** What the summary call cost (null: no known price). */
  costUsd: number | null;
  /** Old tool outputs cut to their first line (a prune alone has no summary and costs nothing). */
  prunedOutputs: number;
}

/**
 * A revert (`session_reverted`): the workspace went back to before the user message `messageId`
 * and `runs` were taken back. Stays in the transcript after a redo (`undone`).
 */
export interface RevertItem extends ItemBase {
  kind: "revert";
  revertId: string;
  messageId: string;
  /** The text of the message reverted to ("" when its event is not held). */
  prompt: string;
  files: RevertFile[];
  /** Every run taken back while this revert is the newest in force. */
  runs: string[];
  sessionId: string;
  /** A redo (`revert_undone`) brought the files and the turns back. */
  undone: boolean;
  /** What the redo changed. */
  redoFiles: RevertFile[];
  /** The newest revert in force, and no run started since: Redo can undo it. */
  redoable: boolean;
}

/** How full the model's context window is, as of the latest answer or compaction. */
export interface ContextState {
  tokens: number;
  window: number;
  /** Counted from the text's length: the model's server reports no usage. */
  estimated?: boolean;
}

export type Item =
  | RetryItem
  | CompactionItem
  | NoticeItem
  | UserItem
  | AssistantItem
  | ToolItem
  | ApprovalItem
  | RunStartItem
  | RunEndItem
  | QuestionItem
  | PlanItem
  | WakeupItem
  | WebSearchItem
  | HookItem
  | RevertItem;

/** What a `goal_updated` event said, and its seq (what tells it apart from an older REST read). */
export interface GoalMark {
  /** null: the goal was deleted. */
  goal: Goal | null;
  seq: number;
}

export interface TranscriptSnapshot {
  version: number;
  /**
   * Call `fn` when the item `key` changed and nothing else did (text streaming into a reply):
   * such a change is not announced as a new snapshot, the item's row redraws alone.
   */
  watchItem: (key: string, fn: () => void) => () => void;
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
  /** What each running background task wrote so far, by task id (its log has it all). */
  taskOutput: ReadonlyMap<string, LiveOutput>;
  session: Session | null;
  /** Counts run_started and run_finished events: what waits behind a run changes with them. */
  runMarks: number;
  /**
   * Counts the events that change what the session has used or may spend (model calls,
   * compactions, run ends, a new cap): its usage is read again when it moves.
   */
  usageMarks: number;
  /**
   * The latest word on each subagent prompt a `child_pending` named, by its id (every session
   * above the asking subagent hears them): what was answered or expired is no longer shown.
   */
  childPrompts: ReadonlyMap<string, ChildPendingStatus>;
  /** Counts `child_pending` events: what waits in the subagents is read again when it moves. */
  childMarks: number;
  /**
   * Counts the events that may change the session's subagents (`child_pending`, results of the
   * subagent tools, run ends): the list of subagents is read again when it moves.
   */
  subagentMarks: number;
  /** The context fill the events held tell of (null: none of them does). */
  context: ContextState | null;
  /** The session's goal as the latest `goal_updated` held tells it (null: none held). */
  goal: GoalMark | null;
  /** The session's line comments (review and plans), oldest first: a new list when one changes. */
  comments: readonly ReviewComment[];
  /**
   * Counts what may change the files the session changed (run ends, reverts and redos): its review
   * is read again when it moves.
   */
  reviewMarks: number;
  /** The newest page has arrived (before that, an empty list means "not read yet"). */
  loaded: boolean;
  /** Why the newest page could not be read (it is tried again), or null. */
  loadError: string | null;
  /** Older events exist than those held (read them with `before` = `olderCursor`). */
  hasOlder: boolean;
  /** A page of older events is on its way. */
  loadingOlder: boolean;
  /** Why the last page of older events could not be read, or null. */
  olderError: string | null;
}
