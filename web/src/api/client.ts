// Thin typed wrapper over the REST API. Same-origin cookie auth; every
// state-changing request sends JSON (the server rejects anything else).
import type {
  AnswerParams,
  ApprovalDecision,
  ApprovalParams,
  ApprovalResponse,
  ArtifactList,
  CancelParams,
  CancelResponse,
  Forked,
  ForkParams,
  PatchQueueItem,
  QueueList,
  RenderError,
  RenderErrorsParams,
  RedoParams,
  RevertParams,
  RevertResult,
  SearchResults,
  CreateSessionParams,
  DeviceLink,
  DeviceList,
  EventPage,
  Health,
  LoginParams,
  McpServerInfo,
  McpServerList,
  ModelList,
  PatchSessionParams,
  FileMatches,
  Goal,
  ImageInput,
  PatchGoalParams,
  PendingItems,
  PlanDecision,
  PlanDecisionParams,
  PlanDecisionResponse,
  PostMessageParams,
  ProbeResult,
  PromptCommands,
  QuestionAnswered,
  QuestionAnswers,
  ProviderList,
  ProviderSettings,
  ProviderSettingsUpdate,
  ProviderView,
  PushDevice,
  PushInfo,
  PushSubscribeParams,
  PushTestResult,
  RunCreated,
  ServerConfig,
  SessionPermissions,
  ToolStatusList,
  Session,
  SessionPage,
  SessionUsage,
  SetGoalParams,
  SpendCaps,
  Task,
  TaskList,
  TaskOutput,
  UsageGroupBy,
  UsageReport,
  WebSearchSettings,
  WebSearchSettingsUpdate,
  WhoAmI,
  WorkspaceConfigApproval,
  WorkspaceConfigView,
} from "./types";
import type { components } from "./schema.gen";

/** A note the agent keeps with `memory_write` (the generated wire type, as types.ts names others). */
export type Memory = components["schemas"]["Memory"];
export type MemoryList = components["schemas"]["MemoryList"];
type PatchMemoryParams = components["schemas"]["PatchMemoryParams"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The message of every request that never reached the server. */
export const NETWORK_MESSAGE = "The server cannot be reached.";

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called whenever any request answers 401 (cookie expired or revoked). */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** `signal`: aborting it rejects with the browser's AbortError (not an ApiError). */
async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: {}, signal };
  if (body !== undefined || method !== "GET") {
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(0, "network", NETWORK_MESSAGE);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
    const ra = res.headers.get("Retry-After");
    if (res.status === 401 && path !== "/api/login") {
      unauthorizedListeners.forEach((fn) => fn());
    }
    throw new ApiError(
      res.status,
      err?.code ?? `http_${res.status}`,
      err?.message ?? (res.statusText || `HTTP ${res.status}`),
      ra ? Number(ra) : null,
    );
  }
  return json as T;
}

const enc = encodeURIComponent;

/** Each segment of a relative path encoded, the slashes kept. */
function encPath(path: string): string {
  return path.split("/").map(enc).join("/");
}

export function artifactFileUrl(id: string, path: string, inline = false): string {
  return `/api/artifacts/${enc(id)}/files/${encPath(path)}${inline ? "?inline=1" : ""}`;
}

/** An image a prompt carried (same-origin: the cookie goes with an <img> as with fetch). */
export function attachmentUrl(id: string): string {
  return `/api/attachments/${enc(id)}`;
}

export function artifactDownloadUrl(id: string, format: "zip" | "tar"): string {
  return `/api/artifacts/${enc(id)}/download?format=${format}`;
}

async function requestText(path: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "network", NETWORK_MESSAGE);
  }
  const text = await res.text();
  if (!res.ok) {
    let msg = res.statusText || `HTTP ${res.status}`;
    let code = `http_${res.status}`;
    try {
      const e = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      if (e?.message) msg = e.message;
      if (e?.code) code = e.code;
    } catch {
      /* not JSON */
    }
    if (res.status === 401) unauthorizedListeners.forEach((fn) => fn());
    throw new ApiError(res.status, code, msg);
  }
  return text;
}

export const api = {
  health: () => request<Health>("GET", "/api/health"),
  whoami: () => request<WhoAmI>("GET", "/api/whoami"),
  login: (password: string) =>
    request<void>("POST", "/api/login", { password } satisfies LoginParams),
  logout: () => request<void>("POST", "/api/logout", {}),
  config: () => request<ServerConfig>("GET", "/api/config"),
  devices: () => request<DeviceList>("GET", "/api/devices"),
  revokeDevice: (id: string) => request<void>("DELETE", `/api/devices/${enc(id)}`, {}),
  deviceLink: () => request<DeviceLink>("POST", "/api/devices/link", {}),

  /** The server's Web Push key and the subscribed browsers (503 `unavailable` when push is off). */
  pushInfo: () => request<PushInfo>("GET", "/api/push"),
  /** `sub`: what the browser's `PushSubscription.toJSON()` gives (the same endpoint again replaces its keys). */
  subscribePush: (sub: PushSubscribeParams) => request<PushDevice>("POST", "/api/push/subscriptions", sub),
  unsubscribePush: (id: string) => request<void>("DELETE", `/api/push/subscriptions/${enc(id)}`, {}),
  /** A test notice to every subscribed browser. */
  testPush: () => request<PushTestResult>("POST", "/api/push/test", {}),

  /** Active and archived sessions alike: the sidebar shows both (archived ones folded away). */
  listSessions: () => request<SessionPage>("GET", "/api/sessions?limit=200&archived=true"),
  createSession: (p: CreateSessionParams) => request<Session>("POST", "/api/sessions", p),
  getSession: (id: string) => request<Session>("GET", `/api/sessions/${enc(id)}`),
  patchSession: (id: string, p: PatchSessionParams) =>
    request<Session>("PATCH", `/api/sessions/${enc(id)}`, p),
  deleteSession: (id: string) => request<void>("DELETE", `/api/sessions/${enc(id)}`, {}),

  /** `images`: sent with the prompt (422 with the server's reason when the model takes none). */
  sendMessage: (id: string, text: string, images: ImageInput[] = []) =>
    request<RunCreated>(
      "POST",
      `/api/sessions/${enc(id)}/messages`,
      (images.length > 0 ? { text, images } : { text }) satisfies PostMessageParams,
    ),
  events: (id: string, after: number, limit = 1000) =>
    request<EventPage>("GET", `/api/sessions/${enc(id)}/events?after=${after}&limit=${limit}`),
  /** The last `limit` events before `before`, oldest first (`next_cursor`: the `before` of the page before). */
  eventsBefore: (id: string, before: number, limit: number) =>
    request<EventPage>("GET", `/api/sessions/${enc(id)}/events?before=${before}&limit=${limit}`),
  /** `dropQueue`: the inputs queued behind the run are cancelled too. */
  cancelRun: (runId: string, dropQueue = false) =>
    request<CancelResponse>(
      "POST",
      `/api/runs/${enc(runId)}/cancel`,
      (dropQueue ? { drop_queue: true } : {}) satisfies CancelParams,
    ),
  /** A run that stopped early goes on in a new run (trigger `resume`). */
  resumeRun: (runId: string) => request<RunCreated>("POST", `/api/runs/${enc(runId)}/resume`, {}),
  queue: (id: string) => request<QueueList>("GET", `/api/sessions/${enc(id)}/queue`),
  editQueued: (id: string, item: string, text: string) =>
    request<void>("PATCH", `/api/sessions/${enc(id)}/queue/${enc(item)}`, { text } satisfies PatchQueueItem),
  removeQueued: (id: string, item: string) =>
    request<void>("DELETE", `/api/sessions/${enc(id)}/queue/${enc(item)}`, {}),
  /** Revert: the workspace back to before the user message `message_id`, that turn and the later ones taken back. */
  revert: (id: string, p: RevertParams) => request<RevertResult>("POST", `/api/sessions/${enc(id)}/revert`, p),
  /** Undo the session's latest revert. */
  redo: (id: string, p: RedoParams) => request<RevertResult>("POST", `/api/sessions/${enc(id)}/redo`, p),
  /** Hits in every session's prompts, answers, tool calls and tool output, best first. */
  search: (q: string, signal?: AbortSignal, limit = 20) =>
    request<SearchResults>("GET", `/api/search?q=${encodeURIComponent(q)}&limit=${limit}`, undefined, signal),
  /** Edit and resend: a new session with the conversation before the message at `seq`, then `text`. */
  fork: (id: string, seq: number, text: string) =>
    request<Forked>("POST", `/api/sessions/${enc(id)}/fork`, { seq, text } satisfies ForkParams),
  reportRenderErrors: (planId: string, errors: RenderError[]) =>
    request<void>("POST", `/api/plans/${enc(planId)}/render-errors`, { errors } satisfies RenderErrorsParams),

  decideApproval: (id: string, decision: ApprovalDecision) =>
    request<ApprovalResponse>("POST", `/api/approvals/${enc(id)}`, { decision } satisfies ApprovalParams),
  /** What waits for the user in the session and in its subagents (each item names its `session`). */
  pending: (id: string) => request<PendingItems>("GET", `/api/sessions/${enc(id)}/pending`),
  /** The subagent sessions the session's `task` calls started, oldest first. */
  children: (id: string) => request<Session[]>("GET", `/api/sessions/${enc(id)}/children`),
  files: (id: string, q: string, limit = 8) =>
    request<FileMatches>("GET", `/api/sessions/${enc(id)}/files?q=${encodeURIComponent(q)}&limit=${limit}`),
  permissions: (id: string) => request<SessionPermissions>("GET", `/api/sessions/${enc(id)}/permissions`),
  revokeGrant: (id: string, key: string, scope: string) =>
    request<void>(
      "DELETE",
      `/api/sessions/${enc(id)}/permissions?key=${encodeURIComponent(key)}&scope=${encodeURIComponent(scope)}`,
    ),
  tools: (sessionId: string) => request<ToolStatusList>("GET", `/api/tools?session=${encodeURIComponent(sessionId)}`),
  answerQuestion: (id: string, answers: QuestionAnswers) =>
    request<QuestionAnswered>("POST", `/api/questions/${enc(id)}`, { answers } satisfies AnswerParams),
  decidePlan: (id: string, decision: Exclude<PlanDecision, "unavailable">, feedback?: string) =>
    request<PlanDecisionResponse>(
      "POST",
      `/api/plans/${enc(id)}/decision`,
      (feedback !== undefined ? { decision, feedback } : { decision }) satisfies PlanDecisionParams,
    ),

  artifacts: (sessionId: string) =>
    request<ArtifactList>("GET", `/api/sessions/${enc(sessionId)}/artifacts`),
  /** A file of an artifact as text (the server always answers text/plain with ?inline=1). */
  artifactText: (id: string, path: string) => requestText(artifactFileUrl(id, path, true)),

  tasks: (id: string) => request<TaskList>("GET", `/api/sessions/${enc(id)}/tasks`),
  taskOutput: (id: string, offset: number, limit = 65536) =>
    request<TaskOutput>("GET", `/api/tasks/${enc(id)}/output?offset=${offset}&limit=${limit}`),
  stopTask: (id: string) => request<Task>("POST", `/api/tasks/${enc(id)}/stop`, {}),

  /** What the session used and cost, the cap that applies to it, and its context fill. */
  sessionUsage: (id: string) => request<SessionUsage>("GET", `/api/sessions/${enc(id)}/usage`),
  /** Usage over the last 30 days (the server's default period), grouped by `group`. */
  usageReport: (group: UsageGroupBy) => request<UsageReport>("GET", `/api/usage?group=${group}`),
  spendCaps: () => request<SpendCaps>("GET", "/api/usage/caps"),
  /** Replaces both server-wide caps (null: no cap). */
  putSpendCaps: (caps: SpendCaps) => request<SpendCaps>("PUT", "/api/usage/caps", caps),
  /** `/compact`: a run that summarises the older turns (202 with its run id). */
  compact: (id: string) => request<RunCreated>("POST", `/api/sessions/${enc(id)}/compact`, {}),
  /** The workspace's own slash commands (prompt templates). */
  commands: (id: string) => request<PromptCommands>("GET", `/api/sessions/${enc(id)}/commands`),

  /** The session's goal (404 `not_found` when it has none). */
  goal: (id: string) => request<Goal>("GET", `/api/sessions/${enc(id)}/goal`),
  /** 409 `goal_exists` (a live goal) or `plan_agent` (a plan session). */
  setGoal: (id: string, p: SetGoalParams) => request<Goal>("POST", `/api/sessions/${enc(id)}/goal`, p),
  /** Pause, resume, edit, change the budget; 409 `budget_exhausted` when resuming a used-up budget. */
  patchGoal: (id: string, p: PatchGoalParams) => request<Goal>("PATCH", `/api/sessions/${enc(id)}/goal`, p),
  deleteGoal: (id: string) => request<void>("DELETE", `/api/sessions/${enc(id)}/goal`, {}),

  setupProbe: () => request<ProbeResult>("GET", "/api/setup/probe"),

  getProvider: () => request<ProviderSettings>("GET", "/api/settings/provider"),
  putProvider: (p: ProviderSettingsUpdate) =>
    request<ProviderSettings>("PUT", "/api/settings/provider", p),
  /** The models a provider reports (`provider`: its id; absent: the default provider). */
  models: (provider?: string) =>
    request<ModelList>("GET", provider === undefined ? "/api/models" : `/api/models?provider=${encodeURIComponent(provider)}`),
  /** Every configured provider, and which is the default. */
  providers: () => request<ProviderList>("GET", "/api/providers"),
  /** Add or replace the provider `id` (the same body as `putProvider`, plus `api_key_env`). */
  putProviderById: (id: string, p: ProviderSettingsUpdate) =>
    request<ProviderView>("PUT", `/api/providers/${enc(id)}`, p),
  /** 409 `provider_is_default` / `provider_from_config` when it cannot be removed. */
  deleteProvider: (id: string) => request<void>("DELETE", `/api/providers/${enc(id)}`, {}),
  makeDefaultProvider: (id: string) => request<ProviderList>("POST", `/api/providers/${enc(id)}/default`, {}),

  getWebSearch: () => request<WebSearchSettings>("GET", "/api/settings/websearch"),
  putWebSearch: (p: WebSearchSettingsUpdate) =>
    request<WebSearchSettings>("PUT", "/api/settings/websearch", p),

  mcpServers: () => request<McpServerList>("GET", "/api/mcp/servers"),
  /** (Re)connect: answers once the server is connected and its tools listed (at most 30 s). */
  connectMcp: (name: string) => request<McpServerInfo>("POST", `/api/mcp/servers/${enc(name)}/connect`, {}),
  disconnectMcp: (name: string) => request<McpServerInfo>("POST", `/api/mcp/servers/${enc(name)}/disconnect`, {}),
  /** The server's workspace's memories and the user's; `q`: any of its words, best first (else newest first). */
  memories: (q = "", signal?: AbortSignal) =>
    request<MemoryList>("GET", q.trim() ? `/api/memories?q=${encodeURIComponent(q.trim())}` : "/api/memories", undefined, signal),
  /** 422 when the text is blank or longer than 2,000 characters; 404 when it is gone. */
  patchMemory: (id: string, text: string) =>
    request<Memory>("PATCH", `/api/memories/${enc(id)}`, { text } satisfies PatchMemoryParams),
  deleteMemory: (id: string) => request<void>("DELETE", `/api/memories/${enc(id)}`, {}),
  workspaceConfig: () => request<WorkspaceConfigView>("GET", "/api/workspace/config"),
  /** Approve the file as it was shown (`hash`): 409 when it changed since. */
  approveWorkspaceConfig: (hash: string) =>
    request<WorkspaceConfigView>("POST", "/api/workspace/config/approve", { hash } satisfies WorkspaceConfigApproval),
};

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
