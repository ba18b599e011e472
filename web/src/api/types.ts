// Wire types of the Tradewind REST + WebSocket protocol (docs/PROTOCOL.md), under the names the
// rest of the SPA uses. The shapes come from `schema.gen.ts`, which `npm run gen:types` generates
// from openapi/openapi.json (never edit it by hand; tests/browser/wire-types.test.mjs fails when it
// is stale). Narrower views are derived here with Extract<> / Pick<>, not written out again.
// snake_case as on the wire; ids are ULID strings; `*_at` are Unix milliseconds.
import type { components } from "./schema.gen";

type Schemas = components["schemas"];

/** An agent's name: `build`, `plan`, or a custom agent the workspace or the user has. */
export type Agent = Schemas["AgentName"];
/** The built-in a custom agent narrows. */
export type BaseAgent = Schemas["Agent"];
export type Mode = Schemas["Mode"];
export type Effect = Schemas["Effect"];
export type SessionStatus = Schemas["SessionStatus"];

export type ApiErrorBody = Schemas["ErrorBody"];
/** The `error` of an error answer: `{code, message}`. */
export type ErrorDetail = Schemas["ErrorDetail"];
/** Who is calling; a browser sign-in's `view_token` goes in the addresses the browser loads itself. */
export type WhoAmI = Schemas["WhoAmI"];
export type ServerConfig = Schemas["ServerConfig"];
export type Health = Schemas["Health"];
export type Device = Schemas["Device"];
export type DeviceList = Schemas["DeviceList"];
export type DeviceLink = Schemas["DeviceLink"];
/** What an API token may do: `read` every GET, `prompt` the rest short of `admin`'s. */
export type TokenScope = Schemas["TokenScope"];
/** An API token as listed (never its secret). */
export type ApiToken = Schemas["ApiToken"];
/** A new API token: its secret is in this answer only. */
export type CreatedToken = Schemas["CreatedToken"];
/** Web Push: the server's key and the browsers subscribed to it. */
export type PushInfo = Schemas["PushInfo"];
/** A browser subscribed to Web Push, as the server shows it (not the DOM's `PushSubscription`). */
export type PushDevice = Schemas["PushSubscription"];
export type PushSubscribeParams = Schemas["PushSubscribeParams"];
export type PushTestResult = Schemas["PushTestResult"];
export type SessionPermissions = Schemas["SessionPermissions"];
/** The process sandbox as the server reports it (`GET /api/config`, a session's permissions). */
export type SandboxInfo = Schemas["SandboxInfo"];
/** One guarantee of the sandbox (`home_allow_list`, `full_mode`…), and whether it holds here. */
export type SandboxGuarantee = Schemas["SandboxGuarantee"];
export type GrantInfo = Schemas["GrantInfo"];
export type GrantScope = Schemas["GrantScope"];
export type ToolStatusList = Schemas["ToolStatusList"];

export type Session = Schemas["Session"];
/** How long a reasoning model thinks before it answers (null on a session: the model's default). */
export type ReasoningEffort = Schemas["ReasoningEffort"];
export type SessionPage = Schemas["SessionPage"];
export type CreateSessionParams = Schemas["CreateSessionParams"];
export type PatchSessionParams = Schemas["PatchSessionParams"];
export type RunCreated = Schemas["PostMessageResponse"];
/** A stored conversation message (what the model sees), as `GET /api/sessions/{id}/messages` pages them. */
export type Message = Schemas["Message"];
/** What `tradewind sessions export --format json` writes and `POST /api/sessions/import` takes. */
export type SessionExport = Schemas["SessionExport"];

export type LoginParams = Schemas["LoginParams"];
export type PostMessageParams = Schemas["PostMessageParams"];
export type CancelResponse = Schemas["CancelResponse"];
export type CancelParams = Schemas["CancelParams"];

// ---- Steering: queue, fork, resume ----------------------------------------

export type QueueItem = Schemas["QueueItem"];
/** How a message sent while a run works reaches it: after the run (`queue`) or into it at its next tool call (`steer`). */
export type Delivery = Schemas["Delivery"];
export type QueueList = Schemas["QueueList"];
export type PatchQueueItem = Schemas["PatchQueueItem"];
export type ForkParams = Schemas["ForkParams"];
export type Forked = Schemas["Forked"];
export type RenderError = Schemas["RenderError"];
export type RenderErrorsParams = Schemas["RenderErrorsParams"];

export type ApprovalDecision = Schemas["ApprovalDecision"];
export type ApprovalParams = Schemas["ApprovalParams"];
export type ApprovalResponse = Schemas["ApprovalResponse"];
export type PendingItems = Schemas["PendingItems"];
export type PendingApproval = Schemas["PendingApproval"];
export type FileMatch = Schemas["FileMatch"];
export type FileMatches = Schemas["FileMatches"];

export type ProviderSettings = Schemas["ProviderSettingsView"];
export type ProviderSettingsUpdate = Schemas["ProviderSettingsParams"];
export type ModelList = Schemas["ModelList"];
export type ModelInfo = Schemas["ModelInfo"];
/** One configured model provider (`GET /api/providers`); its key is never sent back. */
export type ProviderView = Schemas["ProviderView"];
export type ProviderList = Schemas["ProviderList"];
export type ProviderKind = Schemas["ProviderKind"];
export type ProviderSource = Schemas["ProviderSource"];
/** `POST /api/providers/test`: what the provider form says, tested without saving. */
export type ProviderTestParams = Schemas["ProviderTestParams"];
export type ProviderTestResult = Schemas["ProviderTestResult"];
/** Which key a provider test sent: the one typed, the saved provider's, or none. */
export type TestKey = Schemas["TestKey"];
export type ProbeResult = Schemas["ProbeResult"];
export type ProbedServer = Schemas["ProbedServer"];
export type WebSearchSettings = Schemas["WebSearchSettingsView"];
export type WebSearchSettingsUpdate = Schemas["WebSearchSettingsParams"];
export type SearchProvider = Schemas["SearchProvider"];

// ---- MCP servers (config.json's, connected from Settings) -----------------

export type McpServerList = Schemas["McpServerList"];
export type McpServerInfo = Schemas["McpServerInfo"];
export type McpToolInfo = Schemas["McpToolInfo"];
export type McpState = Schemas["McpState"];
/** The workspace's own `.tradewind/config.json`: untrusted until its exact content is approved. */
export type WorkspaceConfigView = Schemas["WorkspaceConfigView"];
export type WorkspaceMcpServer = Schemas["WorkspaceMcpServer"];
export type WorkspaceConfigApproval = Schemas["WorkspaceConfigApproval"];
/** `GET /api/fs/dirs`: one folder's folders under the home folder, and the recent workspaces. */
export type DirListing = Schemas["DirListing"];
export type DirEntry = Schemas["DirEntry"];
export type RecentWorkspace = Schemas["RecentWorkspace"];

// ---- Memories ----------------------------------------------------------------

/** A note the agent keeps with `memory_write`. */
export type Memory = Schemas["Memory"];
export type MemoryList = Schemas["MemoryList"];

// ---- Agent Skills and hooks (the workspace's count once trusted) -------------

/** One Agent Skill: where it is from, what it says of itself, whether it is turned on. */
export type SkillInfo = Schemas["SkillInfo"];
export type SkillList = Schemas["SkillList"];
/** One configured hook: its event, the tools it runs for, its command. */
export type HookInfo = Schemas["HookInfo"];
export type HookFileInfo = Schemas["HookFileInfo"];
export type HookList = Schemas["HookList"];

// ---- Custom agents (the workspace's count once trusted) ----------------------

/** One agent a session can run as: a built-in, or a custom one narrowing `build` or `plan`. */
export type AgentInfo = Schemas["AgentInfo"];
export type AgentList = Schemas["AgentList"];

// ---- Plugins (installed off; once on, their parts count) --------------------

/** One installed plugin: what it bundles, its folder, whether it is on, what of it cannot be used. */
export type PluginInfo = Schemas["PluginInfo"];
export type PluginList = Schemas["PluginList"];

// ---- Usage, cost, spend caps and compaction --------------------------------

/** Tokens and cost of a model call, a run or a session (`cost_usd` null: no known price). */
export type Usage = Schemas["Usage"];
export type SessionUsage = Schemas["SessionUsage"];
/** How full a session's context window was at its latest model call. */
export type ContextFill = Schemas["ContextFill"];
export type UsageReport = Schemas["UsageReport"];
export type UsageRow = Schemas["UsageRow"];
export type UsageGroupBy = Schemas["UsageGroupBy"];
export type SpendCaps = Schemas["SpendCaps"];
export type CompactTrigger = Schemas["CompactTrigger"];
/** A workspace prompt template (`.tradewind/commands/<name>.md`), run as `/name args`. */
export type PromptCommand = Schemas["PromptCommand"];
export type PromptCommands = Schemas["PromptCommands"];

// ---- Search, revert and redo ---------------------------------------------

/** One hit of `GET /api/search`: `highlights` are [start, end) UTF-16 offsets into `snippet`. */
export type SearchHit = Schemas["SearchHit"];
export type SearchResults = Schemas["SearchResults"];
export type RevertParams = Schemas["RevertParams"];
/** What a revert takes back: the conversation, the files, or both (the default). */
export type RevertScope = Schemas["RevertScope"];
export type RedoParams = Schemas["RedoParams"];
/** What a revert or redo did (or, as a dry run, would do). */
export type RevertResult = Schemas["RevertResult"];
export type RevertFile = Schemas["RevertFile"];
/** A file a revert or redo leaves as it is (changed by hand or another session) unless `include` names it. */
export type KeptFile = Schemas["KeptFile"];
export type ChangedBy = Schemas["ChangedBy"];

// ---- Review: a session's changes as one diff, worktrees, line comments ------

/** The git worktree a session works in (`worktree: true` at its start). */
export type SessionWorktree = Schemas["SessionWorktree"];
/** `GET /api/fs/branches`: the branches a worktree can start from. */
export type BranchList = Schemas["BranchList"];
/** `GET /api/sessions/{id}/review`: everything a session changed. */
export type SessionReview = Schemas["SessionReview"];
/** What a review compares against: the worktree's fork point, the session's snapshots, or nothing. */
export type ReviewBase = Schemas["ReviewBase"];
export type ReviewFile = Schemas["ReviewFile"];
export type ReviewHunk = Schemas["ReviewHunk"];
export type ReviewLine = Schemas["ReviewLine"];
export type HunkActionKind = Schemas["HunkActionKind"];
/** A line comment on a session's review (`diff`) or on a plan revision (`plan`). */
export type ReviewComment = Schemas["ReviewComment"];
export type NewReviewComment = Schemas["NewReviewComment"];
export type PatchReviewComment = Schemas["PatchReviewComment"];
export type CommentTarget = Schemas["CommentTarget"];
export type CommentSide = Schemas["CommentSide"];
export type CommentStatus = Schemas["CommentStatus"];
/** A plan revision's answer to a comment on an earlier one. */
export type CommentAnswer = Schemas["CommentAnswer"];

// ---- Images of a prompt ----------------------------------------------------

/** The image formats a prompt may carry. */
export type ImageType = Schemas["ImageType"];
/** One image sent with a prompt (base64, no `data:` prefix). */
export type ImageInput = Schemas["ImageInput"];
/** An image a prompt carried, as a `user_message` lists it (`GET /api/attachments/{id}` serves it). */
export type ImageRef = Schemas["ImageRef"];

// ---- Goals ----------------------------------------------------------------

export type Goal = Schemas["Goal"];
export type GoalStatus = Schemas["GoalStatus"];
/** What a goal may use (each part optional: the server's defaults, or the old value on a patch). */
export type GoalBudget = Schemas["GoalBudget"];
/** Each budget of a goal and what of it was used. */
export type GoalBudgets = Schemas["GoalBudgets"];
export type GoalReport = Schemas["GoalReport"];
export type Evidence = Schemas["Evidence"];
export type EvidenceKind = Schemas["EvidenceKind"];
export type SetGoalParams = Schemas["SetGoalParams"];
export type PatchGoalParams = Schemas["PatchGoalParams"];

// ---- Display parts -------------------------------------------------------

export type Part = Schemas["Part"];
export type Citation = Schemas["Citation"];
export type WebSource = Schemas["WebSource"];
export type DiffPart = Extract<Part, { type: "diff" }>;
export type TerminalPart = Extract<Part, { type: "terminal" }>;
export type TodosPart = Extract<Part, { type: "todos" }>;
export type TodoItem = Schemas["TodoItem"];
export type ImagePart = Extract<Part, { type: "image" }>;
export type TablePart = Extract<Part, { type: "table" }>;
export type KeyValuePart = Extract<Part, { type: "key_value" }>;
export type TreePart = Extract<Part, { type: "tree" }>;
export type KeyValueEntry = Schemas["KeyValueEntry"];
export type TreeNode = Schemas["TreeNode"];

// ---- Questions (ask_user_question) ----------------------------------------

export type Question = Schemas["Question"];
/** One entry per question: the chosen option labels, or null when skipped. */
export type QuestionAnswers = Schemas["AnswerParams"]["answers"];
export type AnswerParams = Schemas["AnswerParams"];
export type QuestionAnswered = Schemas["QuestionAnswered"];
export type PendingQuestion = Schemas["PendingQuestion"];

// ---- Plans and artifacts --------------------------------------------------

export type PlanDiagram = Schemas["PlanDiagram"];
export type PlanDecision = Schemas["PlanDecision"];
export type PlanDecisionParams = Schemas["PlanDecisionParams"];
export type PlanDecisionResponse = Schemas["PlanDecisionResponse"];
export type PendingPlan = Schemas["PendingPlan"];
export type Artifact = Schemas["Artifact"];
export type ArtifactFile = Schemas["ArtifactFile"];
export type ArtifactList = Schemas["ArtifactList"];

// ---- Background tasks -----------------------------------------------------

export type Task = Schemas["TaskInfo"];
export type TaskList = Schemas["TaskList"];
export type TaskOutput = Schemas["TaskOutput"];
/** Which of a running command's outputs a `tool_output` event carries. */
export type OutputStream = Schemas["OutputStream"];

// ---- Events ---------------------------------------------------------------

/**
 * One stored, sequenced event as it arrives (a REST page, a WebSocket frame with a `seq`): a
 * `KnownEvent`, or an `UnknownEvent` of a type this build does not know (a newer server), which
 * only advances the seq. Tell the two apart with `isKnownEvent` (api/events.ts).
 */
export type EventFrame = Schemas["EventFrame"];
/** An event of a type the OpenAPI document describes, one schema per `type`. */
export type KnownEvent = Schemas["KnownEvent"];
export type UnknownEvent = Schemas["UnknownEvent"];
export type EventPage = Schemas["EventPage"];
export type EventType = Schemas["EventType"];
/** The frame of one event type, e.g. `EventOf<"run_started">`. */
export type EventOf<T extends EventType> = Extract<KnownEvent, { type: T }>;

export type RunStartedEvent = EventOf<"run_started">;
export type ApprovalRequestedEvent = EventOf<"approval_requested">;
export type PlanProposedEvent = EventOf<"plan_proposed">;
export type RunFinishedEvent = EventOf<"run_finished">;
/** Where a subagent's prompt stands, as `child_pending` (sent to every session above it) says it. */
export type ChildPendingStatus = Schemas["ChildPendingStatus"];
export type ApprovalOutcome = Schemas["ApprovalOutcome"];
export type PolicyDecision = Schemas["PolicyDecision"];

/** The fields every event has, whatever its type. */
export type EventEnvelope = Schemas["EventEnvelope"];

// ---- WebSocket control frames ----------------------------------------------

/** A frame the client sends: subscriptions, and commands that mirror REST. */
export type WsClientFrame = Schemas["WsClientFrame"];
/** A control frame the server sends (no `seq`; event frames are `EventFrame`). */
export type WsServerFrame = Schemas["WsServerFrame"];
export type WsServerFrameType = WsServerFrame["type"];
/** The live session list's frames (`subscribe_sessions`). */
export type SessionListFrame = Extract<WsServerFrame, { type: "session_updated" | "session_deleted" | "sessions_resync" }>;
