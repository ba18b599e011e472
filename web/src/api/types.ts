// Wire types of the Tradewind REST + WebSocket protocol (docs/PROTOCOL.md).
// snake_case as on the wire; ids are ULID strings; `*_at` are Unix milliseconds.

export type Agent = "build" | "plan";
export type Mode = "ask" | "auto" | "full";
export type Effect = "read" | "write" | "process" | "external" | "internal";
export type SessionStatus = "idle" | "running" | "waiting";

export interface ApiErrorBody {
  error: { code: string; message: string };
}

export interface WhoAmI {
  kind: "cookie" | "bearer";
  login_session_id?: string;
  token_id?: string;
  password_set: boolean;
}

export interface Session {
  id: string;
  title: string;
  workspace: string;
  agent: Agent;
  mode: Mode;
  archived: boolean;
  status: SessionStatus;
  created_at: number;
  updated_at: number;
  last_seq: number;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | number | null;
}

export interface CreateSessionParams {
  workspace?: string;
  title?: string;
  agent?: Agent;
  mode?: Mode;
}

export interface PatchSessionParams {
  title?: string;
  agent?: Agent;
  mode?: Mode;
  archived?: boolean;
}

export interface RunCreated {
  run_id: string;
}

export type ApprovalDecision = "once" | "session" | "directory" | "deny";

export interface ProviderSettings {
  kind: string;
  base_url: string;
  model: string;
  api_key_set: boolean;
}

export interface ProviderSettingsUpdate {
  kind: string;
  base_url: string;
  model: string;
  api_key?: string;
}

export interface ModelInfo {
  id: string;
}

export interface ServerConfig {
  workspace?: string;
  extra_roots?: string[];
  ceiling: { write: boolean; process: boolean; external: boolean };
  read_only: boolean;
  yolo: boolean;
  version: string;
}

// ---- Display parts -------------------------------------------------------

export interface DiffPart {
  type: "diff";
  path: string;
  lang?: string | null;
  patch: string;
  truncated: boolean;
}

export interface TerminalPart {
  type: "terminal";
  command: string;
  stdout: string;
  stderr: string;
  exit_code: number | null;
  duration_ms: number | null;
  truncated: boolean;
}

export interface UnknownPart {
  type: string;
  [k: string]: unknown;
}

export type Part = DiffPart | TerminalPart | UnknownPart;

// ---- Questions (ask_user_question) ----------------------------------------

export interface QuestionOption {
  label: string;
  description?: string | null;
  recommended?: boolean;
}

export interface Question {
  question: string;
  header?: string | null;
  options: QuestionOption[];
  multi_select?: boolean;
}

/** One entry per question: the chosen option labels, or null when skipped. */
export type QuestionAnswers = (string[] | null)[];

// ---- Plans and artifacts --------------------------------------------------

export interface PlanDiagram {
  id: string;
  title: string;
  explanation: string;
  section?: string | null;
  type: string;
  mermaid: string;
  /** Against the previous revision. */
  mark: "new" | "updated" | "unchanged" | string;
}

export interface DroppedDiagram {
  id: string;
  reason: string;
}

export interface ArtifactFile {
  path: string;
  size: number;
}

export interface Artifact {
  id: string;
  kind: "plan" | string;
  name: string;
  revision: number;
  title?: string | null;
  files: ArtifactFile[];
  created_at: number;
}

export type PlanDecision = "approved" | "feedback" | "skipped" | "unavailable";

export interface PendingQuestion {
  question_id: string;
  run_id: string;
  questions: Question[];
  created_at: number;
}

export interface PendingPlan {
  plan_id: string;
  run_id: string;
  artifact_id: string;
  revision: number;
  title?: string | null;
  created_at: number;
}

// ---- Background tasks -----------------------------------------------------

export type TaskStatus = "queued" | "running" | "stopping" | "succeeded" | "failed" | "cancelled" | "lost";

export interface Task {
  id: string;
  session_id: string;
  label?: string | null;
  command: string;
  cwd?: string | null;
  status: TaskStatus | string;
  exit_code?: number | null;
  error?: string | { code: string; message: string } | null;
  stopped_by?: "user" | "model" | "timeout" | "shutdown" | null;
  pid?: number | null;
  output_bytes?: number;
  timeout_ms?: number | null;
  created_at: number;
  started_at?: number | null;
  finished_at?: number | null;
}

export interface TaskOutput {
  id: string;
  status: TaskStatus | string;
  exit_code?: number | null;
  text: string;
  next_offset: number;
  eof: boolean;
  output_truncated: boolean;
}

// ---- Setup ----------------------------------------------------------------

export interface ProbedServer {
  name: string;
  base_url: string;
  models: string[];
}

// ---- Events ---------------------------------------------------------------

export interface EventBase {
  seq: number;
  session: string;
  run: string | null;
  at?: number;
}

export interface UserMessageEvent extends EventBase {
  type: "user_message";
  message_id: string;
  text: string;
}

export interface RunStartedEvent extends EventBase {
  type: "run_started";
  run_id: string;
  agent: Agent;
  mode: Mode;
  trigger: "prompt" | "command" | "plan" | "wakeup" | string;
}

export interface MessageDeltaEvent extends EventBase {
  type: "message_delta";
  message_id: string;
  text: string;
}

export interface ReasoningDeltaEvent extends EventBase {
  type: "reasoning_delta";
  message_id: string;
  text: string;
}

export interface MessageCompleteEvent extends EventBase {
  type: "message_complete";
  message_id: string;
  text: string;
  reasoning?: string | null;
}

export interface ToolCallEvent extends EventBase {
  type: "tool_call";
  call_id: string;
  tool: string;
  effect: Effect | string;
  input: unknown;
}

export interface PolicyDecisionEvent extends EventBase {
  type: "policy_decision";
  call_id: string;
  tool: string;
  effect: string;
  decision: "allow" | "ask" | "deny";
  reason?: string;
  key?: string;
}

export interface ApprovalRequestedEvent extends EventBase {
  type: "approval_requested";
  approval_id: string;
  call_id: string;
  tool: string;
  effect: Effect | string;
  input: unknown;
  reason?: string | null;
  scope?: "effect" | "directory";
  directory?: string | null;
  warnings?: string[];
}

export interface ApprovalDecidedEvent extends EventBase {
  type: "approval_decided";
  approval_id: string;
  decision: string;
}

export interface ToolResultEvent extends EventBase {
  type: "tool_result";
  call_id: string;
  tool: string;
  ok: boolean;
  text: string;
  parts?: Part[];
}

export interface QuestionAskedEvent extends EventBase {
  type: "question_asked";
  question_id: string;
  call_id: string;
  questions: Question[];
}

export interface QuestionAnsweredEvent extends EventBase {
  type: "question_answered";
  question_id: string;
  answers: QuestionAnswers;
}

export interface PlanProposedEvent extends EventBase {
  type: "plan_proposed";
  plan_id: string;
  artifact_id: string;
  call_id?: string;
  revision: number;
  title?: string | null;
  plan: string;
  hash: string;
  diagrams: PlanDiagram[];
  removed: string[];
  dropped: DroppedDiagram[];
  files?: ArtifactFile[];
}

export interface PlanDecidedEvent extends EventBase {
  type: "plan_decided";
  plan_id: string;
  decision: PlanDecision | string;
  feedback?: string | null;
}

export interface TaskUpdatedEvent extends EventBase {
  type: "task_updated";
  task: Task;
}

export interface WakeupEvent extends EventBase {
  type: "wakeup";
  task_ids: string[];
  text: string;
}

export interface RunFinishedEvent extends EventBase {
  type: "run_finished";
  run_id: string;
  status: "completed" | "failed" | "cancelled" | "interrupted" | string;
  error: { code: string; message: string } | null;
  usage?: { input_tokens: number; output_tokens: number } | null;
  duration_ms?: number | null;
}

// NOTE: the frame's own `session` (an id) and this payload's `session` (an
// object) share a name on the wire; we accept either shape.
export interface RunErrorEvent extends EventBase {
  type: "error";
  code: string;
  message: string;
}

export interface SessionUpdatedEvent extends Omit<EventBase, "session"> {
  type: "session_updated";
  /** The frame's `session` is the id; the new state is in `data`. */
  session: string;
  data: Session;
}

export interface UnknownEvent extends Omit<EventBase, "session"> {
  type: string;
  session: string | unknown;
  [k: string]: unknown;
}

export type KnownEvent =
  | UserMessageEvent
  | RunStartedEvent
  | MessageDeltaEvent
  | ReasoningDeltaEvent
  | MessageCompleteEvent
  | ToolCallEvent
  | PolicyDecisionEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent
  | ToolResultEvent
  | QuestionAskedEvent
  | QuestionAnsweredEvent
  | PlanProposedEvent
  | PlanDecidedEvent
  | TaskUpdatedEvent
  | WakeupEvent
  | RunFinishedEvent
  | RunErrorEvent
  | SessionUpdatedEvent;

export type ServerEvent = KnownEvent | UnknownEvent;

// ---- WebSocket frames -----------------------------------------------------

export type ClientFrame =
  | { type: "subscribe"; session: string; after: number }
  | { type: "unsubscribe"; session: string };

export interface AckFrame {
  type: "ack";
  id: string;
  result: unknown;
}

export interface ErrorFrame {
  type: "error";
  id?: string;
  error: { code: string; message: string };
}
