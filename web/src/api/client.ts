// The REST client, bound to the OpenAPI document: openapi-fetch reads `paths` (schema.gen.ts), so
// each call's path, method, parameters, body and answer are the contract's, and a call that no
// longer matches it fails `tsc`. The functions of `api` name the calls the app makes; none writes
// a wire type of its own. Same-origin cookie auth plus the page token (page.ts) on every request;
// every state-changing request sends JSON (the server rejects anything else), `{}` when the
// operation takes no body.
import createClient, { type PathSerializer } from "openapi-fetch";
import { PAGE_HEADER, clearPageToken, pageToken, setPageToken } from "./page";
import type { paths } from "./schema.gen";
import type {
  ApprovalDecision,
  CommentTarget,
  CreateSessionParams,
  Delivery,
  ErrorDetail,
  GrantScope,
  HunkActionKind,
  ImageInput,
  Mode,
  NewReviewComment,
  PatchGoalParams,
  PatchReviewComment,
  PatchSessionParams,
  PlanDecision,
  ProviderSettingsUpdate,
  ProviderTestParams,
  PushSubscribeParams,
  QuestionAnswers,
  RedoParams,
  RenderError,
  RevertParams,
  SetGoalParams,
  SpendCaps,
  TokenScope,
  UsageGroupBy,
  WebSearchSettingsUpdate,
  WhoAmI,
} from "./types";

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

/**
 * The view token of this sign-in (`whoami`): the `view` parameter of the addresses the browser
 * loads itself (images, links), which carry no header. Null while signed out.
 */
let viewToken: string | null = null;

function rememberSignIn(who: WhoAmI): WhoAmI {
  viewToken = who.view_token ?? null;
  return who;
}

/** Keeps the page token a sign-in answers with (the `POST /api/login` answer's header). */
function keepPageToken<A extends { response: Response }>(answer: A): A {
  const token = answer.response.ok ? answer.response.headers.get(PAGE_HEADER) : null;
  if (token) setPageToken(token);
  return answer;
}

/** Signed out: this page's tokens are gone with the sign-in. */
function forgetSignIn(): void {
  clearPageToken();
  viewToken = null;
}

/**
 * Every request goes out here, with the page token when one is stored. A state-changing one
 * without a body of its own gets `{}` as JSON. An answer 401 forgets the token it carried. A
 * request that never reached the server rejects with an ApiError (status 0), unless its signal was
 * aborted: that rejects with the browser's AbortError.
 */
async function send(req: Request): Promise<Response> {
  const token = pageToken();
  const noBody = req.method !== "GET" && !req.headers.has("Content-Type");
  if (token || noBody) {
    const headers = new Headers(req.headers);
    if (token) headers.set(PAGE_HEADER, token);
    if (noBody) headers.set("Content-Type", "application/json");
    req = new Request(req, noBody ? { body: "{}", headers } : { headers });
  }
  let res: Response;
  try {
    res = await fetch(req);
  } catch (e) {
    if (req.signal.aborted) throw e;
    throw new ApiError(0, "network", NETWORK_MESSAGE);
  }
  if (res.status === 401 && token) {
    clearPageToken(token);
    viewToken = null;
  }
  return res;
}

const client = createClient<paths>({ credentials: "same-origin", fetch: send });

/** The `{"error":{code,message}}` of a failed answer, as far as the body (untrusted) has it. */
function errorDetail(body: unknown): Partial<ErrorDetail> {
  if (typeof body !== "object" || body === null || !("error" in body)) return {};
  const e = body.error;
  if (typeof e !== "object" || e === null) return {};
  return {
    code: "code" in e && typeof e.code === "string" ? e.code : undefined,
    message: "message" in e && typeof e.message === "string" ? e.message : undefined,
  };
}

/** What openapi-fetch answers: `data` typed by the operation's success response. */
interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * The success data of a call, or an ApiError with the server's code and message. A 401 tells the
 * `onUnauthorized` listeners (the cookie expired or was revoked), except where it is an answer of
 * its own (`signIn: true`: a wrong password).
 */
async function ok<D>(pending: Promise<Answer<D>>, { signIn = false } = {}): Promise<D> {
  const { data, error, response: res } = await pending;
  if (res.ok) return data as D;
  if (res.status === 401 && !signIn) unauthorizedListeners.forEach((fn) => fn());
  const detail = errorDetail(error);
  const ra = res.headers.get("Retry-After");
  throw new ApiError(
    res.status,
    detail.code ?? `http_${res.status}`,
    detail.message ?? (res.statusText || `HTTP ${res.status}`),
    ra ? Number(ra) : null,
  );
}

const enc = encodeURIComponent;

/** Each segment of a relative path encoded, the slashes kept. */
function encPath(path: string): string {
  return path.split("/").map(enc).join("/");
}

/** Path parameters encoded segment by segment: a file path inside an artifact keeps its slashes. */
const keepSlashes: PathSerializer = (pathname, params) =>
  pathname.replace(/\{(\w+)\}/g, (_, name: string) => encPath(String(params[name])));

// Addresses the browser loads itself (links, images): each template is checked against `paths`.
const ARTIFACT_FILE = "/api/artifacts/{id}/files/{path}" satisfies keyof paths;
const ARTIFACT_DOWNLOAD = "/api/artifacts/{id}/download" satisfies keyof paths;
const ATTACHMENT = "/api/attachments/{id}" satisfies keyof paths;

/** `path` with `query` and the view token: the cookie alone opens nothing of the API. */
function viewable(path: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query);
  if (viewToken) q.set("view", viewToken);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export function artifactFileUrl(id: string, path: string, inline = false): string {
  return viewable(keepSlashes(ARTIFACT_FILE, { id, path }), inline ? { inline: "1" } : {});
}

/** An image a prompt carried. */
export function attachmentUrl(id: string): string {
  return viewable(keepSlashes(ATTACHMENT, { id }));
}

export function artifactDownloadUrl(id: string, format: "zip" | "tar"): string {
  return viewable(keepSlashes(ARTIFACT_DOWNLOAD, { id }), { format });
}

/** `{ params: { path: { id } } }`: the most common parameters. */
const byId = (id: string) => ({ params: { path: { id } } });

export const api = {
  health: () => ok(client.GET("/api/health")),
  /** Also keeps the sign-in's view token for `artifactFileUrl` and the like. */
  whoami: () => ok(client.GET("/api/whoami")).then(rememberSignIn),
  /** Keeps the page token the answer carries. */
  login: (password: string) =>
    ok(client.POST("/api/login", { body: { password } }).then(keepPageToken), { signIn: true }),
  /** The page's tokens are forgotten whatever the answer. */
  logout: () => ok(client.POST("/api/logout")).finally(forgetSignIn),
  config: () => ok(client.GET("/api/config")),
  devices: () => ok(client.GET("/api/devices")),
  revokeDevice: (id: string) => ok(client.DELETE("/api/devices/{id}", byId(id))),
  /** Name a device; null or blank: back to its browser's name. */
  nameDevice: (id: string, label: string | null) => ok(client.PATCH("/api/devices/{id}", { ...byId(id), body: { label } })),
  deviceLink: () => ok(client.POST("/api/devices/link")),

  /** API tokens for automation (never their secrets). */
  tokens: () => ok(client.GET("/api/tokens")),
  /** The answer holds the secret, shown once. `read` is implied by the server. */
  createToken: (name: string, scopes: TokenScope[]) =>
    ok(client.POST("/api/tokens", { body: { name, scopes } })),
  revokeToken: (id: string) => ok(client.DELETE("/api/tokens/{id}", byId(id))),

  /** The server's Web Push key and the subscribed browsers (503 `unavailable` when push is off). */
  pushInfo: () => ok(client.GET("/api/push")),
  /** `sub`: what the browser's `PushSubscription.toJSON()` gives (the same endpoint again replaces its keys). */
  subscribePush: (sub: PushSubscribeParams) =>
    ok(client.POST("/api/push/subscriptions", { body: sub })),
  unsubscribePush: (id: string) => ok(client.DELETE("/api/push/subscriptions/{id}", byId(id))),
  /** A test notice to every subscribed browser. */
  testPush: () => ok(client.POST("/api/push/test")),

  /** Active and archived sessions alike: the sidebar shows both (archived ones folded away). */
  listSessions: () => ok(client.GET("/api/sessions", { params: { query: { limit: 200, archived: true } } })),
  createSession: (p: CreateSessionParams) => ok(client.POST("/api/sessions", { body: p })),
  getSession: (id: string) => ok(client.GET("/api/sessions/{id}", byId(id))),
  patchSession: (id: string, p: PatchSessionParams) =>
    ok(client.PATCH("/api/sessions/{id}", { ...byId(id), body: p })),
  /**
   * 409 `uncommitted_changes` when the session's worktree has uncommitted work: `force` deletes it
   * anyway (that work is lost; the branch is kept).
   */
  deleteSession: (id: string, force = false) =>
    ok(client.DELETE("/api/sessions/{id}", { params: { path: { id }, query: force ? { force: true } : {} } })),

  /**
   * `images`: sent with the prompt (422 with the server's reason when the model takes none).
   * `delivery` (while a run works): `steer` hands it to that run at its next tool call, `queue`
   * (the server's default) waits for the run to end.
   */
  sendMessage: (id: string, text: string, images: ImageInput[] = [], delivery?: Delivery) =>
    ok(
      client.POST("/api/sessions/{id}/messages", {
        ...byId(id),
        body: { text, ...(images.length > 0 ? { images } : {}), ...(delivery ? { delivery } : {}) },
      }),
    ),
  events: (id: string, after: number, limit = 1000) =>
    ok(client.GET("/api/sessions/{id}/events", { params: { path: { id }, query: { after, limit } } })),
  /** The conversation as the model sees it, oldest first: `cursor` is the page before's `next_cursor`. */
  messages: (id: string, cursor?: string, limit = 500) =>
    ok(client.GET("/api/sessions/{id}/messages", { params: { path: { id }, query: { limit, ...(cursor ? { cursor } : {}) } } })),
  /** The last `limit` events before `before`, oldest first (`next_cursor`: the `before` of the page before). */
  eventsBefore: (id: string, before: number, limit: number) =>
    ok(client.GET("/api/sessions/{id}/events", { params: { path: { id }, query: { before, limit } } })),
  /** `dropQueue`: the inputs queued behind the run are cancelled too. */
  cancelRun: (runId: string, dropQueue = false) =>
    ok(client.POST("/api/runs/{id}/cancel", { ...byId(runId), body: dropQueue ? { drop_queue: true } : {} })),
  /** A run that stopped early goes on in a new run (trigger `resume`). */
  resumeRun: (runId: string) => ok(client.POST("/api/runs/{id}/resume", byId(runId))),
  queue: (id: string) => ok(client.GET("/api/sessions/{id}/queue", byId(id))),
  editQueued: (id: string, item: string, text: string) =>
    ok(client.PATCH("/api/sessions/{id}/queue/{item}", { params: { path: { id, item } }, body: { text } })),
  removeQueued: (id: string, item: string) =>
    ok(client.DELETE("/api/sessions/{id}/queue/{item}", { params: { path: { id, item } } })),
  /** Revert: the workspace back to before the user message `message_id`, that turn and the later ones taken back. */
  revert: (id: string, p: RevertParams) =>
    ok(client.POST("/api/sessions/{id}/revert", { ...byId(id), body: p })),
  /** Undo the session's latest revert. */
  redo: (id: string, p: RedoParams) =>
    ok(client.POST("/api/sessions/{id}/redo", { ...byId(id), body: p })),
  /** Hits in every session's prompts, answers, tool calls and tool output, best first. */
  search: (q: string, signal?: AbortSignal, limit = 20) =>
    ok(client.GET("/api/search", { params: { query: { q, limit } }, signal })),
  /** Edit and resend: a new session with the conversation before the message at `seq`, then `text`. */
  fork: (id: string, seq: number, text: string) =>
    ok(client.POST("/api/sessions/{id}/fork", { ...byId(id), body: { seq, text } })),
  /** A copy of the whole conversation as a new session (the session must be idle). */
  forkWhole: (id: string) => ok(client.POST("/api/sessions/{id}/fork", { ...byId(id), body: {} })),
  reportRenderErrors: (planId: string, errors: RenderError[]) =>
    ok(client.POST("/api/plans/{id}/render-errors", { ...byId(planId), body: { errors } })),

  /** `reason` (with `deny` only): what the agent is told with the denial. */
  decideApproval: (id: string, decision: ApprovalDecision, reason?: string) =>
    ok(client.POST("/api/approvals/{id}", { ...byId(id), body: reason !== undefined ? { decision, reason } : { decision } })),
  /** What waits for the user in the session and in its subagents (each item names its `session`). */
  pending: (id: string) => ok(client.GET("/api/sessions/{id}/pending", byId(id))),
  /** The subagent sessions the session's `task` calls started, oldest first. */
  children: (id: string) => ok(client.GET("/api/sessions/{id}/children", byId(id))),
  files: (id: string, q: string, limit = 8) =>
    ok(client.GET("/api/sessions/{id}/files", { params: { path: { id }, query: { q, limit } } })),
  permissions: (id: string) => ok(client.GET("/api/sessions/{id}/permissions", byId(id))),
  allowInJail: (id: string, path: string) =>
    ok(client.POST("/api/sessions/{id}/jail-allows", { ...byId(id), body: { path } })),
  revokeGrant: (id: string, key: string, scope: GrantScope) =>
    ok(client.DELETE("/api/sessions/{id}/permissions", { params: { path: { id }, query: { key, scope } } })),
  tools: (sessionId: string) => ok(client.GET("/api/tools", { params: { query: { session: sessionId } } })),
  answerQuestion: (id: string, answers: QuestionAnswers) =>
    ok(client.POST("/api/questions/{id}", { ...byId(id), body: { answers } })),
  /** `mode` (with `approved` only): the session's mode for the implementation (left out: kept). */
  decidePlan: (id: string, decision: Exclude<PlanDecision, "unavailable">, feedback?: string, mode?: Mode) =>
    ok(
      client.POST("/api/plans/{id}/decision", {
        ...byId(id),
        body: { decision, ...(feedback !== undefined ? { feedback } : {}), ...(mode ? { mode } : {}) },
      }),
    ),

  artifacts: (sessionId: string) => ok(client.GET("/api/sessions/{id}/artifacts", byId(sessionId))),
  /** A file of an artifact as text (the server always answers text/plain with ?inline=1). */
  artifactText: (id: string, path: string) =>
    ok(
      client.GET("/api/artifacts/{id}/files/{path}", {
        params: { path: { id, path }, query: { inline: "1" } },
        parseAs: "text",
        pathSerializer: keepSlashes,
      }),
    ),

  tasks: (id: string) => ok(client.GET("/api/sessions/{id}/tasks", byId(id))),
  taskOutput: (id: string, offset: number, limit = 65536) =>
    ok(client.GET("/api/tasks/{id}/output", { params: { path: { id }, query: { offset, limit } } })),
  stopTask: (id: string) => ok(client.POST("/api/tasks/{id}/stop", byId(id))),

  /** Everything the session changed, as one diff (against its worktree's base, or its snapshots). */
  review: (id: string) => ok(client.GET("/api/sessions/{id}/review", byId(id))),
  /** Stage, unstage or revert one hunk (the session must be idle): answers the review as it then is. */
  reviewHunk: (id: string, path: string, header: string, action: HunkActionKind) =>
    ok(client.POST("/api/sessions/{id}/review/hunk", { ...byId(id), body: { path, header, action } })),
  /** The session's line comments (its review's and its plans'), oldest first. */
  reviewComments: (id: string) => ok(client.GET("/api/sessions/{id}/review/comments", byId(id))),
  /** A draft comment on lines of the review or of a plan revision. */
  addComment: (id: string, c: NewReviewComment) =>
    ok(client.POST("/api/sessions/{id}/review/comments", { ...byId(id), body: c })),
  patchComment: (id: string, p: PatchReviewComment) =>
    ok(client.PATCH("/api/review-comments/{id}", { ...byId(id), body: p })),
  deleteComment: (id: string) => ok(client.DELETE("/api/review-comments/{id}", byId(id))),
  /** The drafts of `target` go to the agent (`plan`: "Request changes" on the waiting revision). */
  sendComments: (id: string, target: CommentTarget) =>
    ok(client.POST("/api/sessions/{id}/review/send", { ...byId(id), body: { target } })),

  /** What the session used and cost, the cap that applies to it, and its context fill. */
  sessionUsage: (id: string) => ok(client.GET("/api/sessions/{id}/usage", byId(id))),
  /** Usage over the last 30 days (the server's default period), grouped by `group`. */
  usageReport: (group: UsageGroupBy) => ok(client.GET("/api/usage", { params: { query: { group } } })),
  spendCaps: () => ok(client.GET("/api/usage/caps")),
  /** Replaces both server-wide caps (null: no cap). */
  putSpendCaps: (caps: SpendCaps) => ok(client.PUT("/api/usage/caps", { body: caps })),
  /** `/compact`: a run that summarises the older turns (202 with its run id). */
  compact: (id: string) => ok(client.POST("/api/sessions/{id}/compact", byId(id))),
  /** The workspace's own slash commands (prompt templates). */
  commands: (id: string) => ok(client.GET("/api/sessions/{id}/commands", byId(id))),

  /** The session's goal (404 `not_found` when it has none). */
  goal: (id: string) => ok(client.GET("/api/sessions/{id}/goal", byId(id))),
  /** 409 `goal_exists` (a live goal) or `plan_agent` (a plan session). */
  setGoal: (id: string, p: SetGoalParams) =>
    ok(client.POST("/api/sessions/{id}/goal", { ...byId(id), body: p })),
  /** Pause, resume, edit, change the budget; 409 `budget_exhausted` when resuming a used-up budget. */
  patchGoal: (id: string, p: PatchGoalParams) =>
    ok(client.PATCH("/api/sessions/{id}/goal", { ...byId(id), body: p })),
  deleteGoal: (id: string) => ok(client.DELETE("/api/sessions/{id}/goal", byId(id))),

  setupProbe: () => ok(client.GET("/api/setup/probe")),

  getProvider: () => ok(client.GET("/api/settings/provider")),
  putProvider: (p: ProviderSettingsUpdate) =>
    ok(client.PUT("/api/settings/provider", { body: p })),
  /** The models a provider reports (`provider`: its id; absent: the default provider). */
  models: (provider?: string) =>
    ok(client.GET("/api/models", { params: { query: provider === undefined ? {} : { provider } } })),
  /** Every configured provider, and which is the default. */
  providers: () => ok(client.GET("/api/providers")),
  /** Add or replace the provider `id` (the same body as `putProvider`, plus `api_key_env`). */
  putProviderById: (id: string, p: ProviderSettingsUpdate) =>
    ok(client.PUT("/api/providers/{id}", { ...byId(id), body: p })),
  /** 409 `provider_is_default` / `provider_from_config` when it cannot be removed. */
  deleteProvider: (id: string) => ok(client.DELETE("/api/providers/{id}", byId(id))),
  makeDefaultProvider: (id: string) => ok(client.POST("/api/providers/{id}/default", byId(id))),
  /** The models the server a provider form describes lists, nothing saved; 502 when it cannot be asked. */
  testProvider: (p: ProviderTestParams) => ok(client.POST("/api/providers/test", { body: p })),
  /** The branches a worktree can start from in `workspace`'s repository (422 when it is in none). */
  branches: (workspace: string, signal?: AbortSignal) =>
    ok(client.GET("/api/fs/branches", { params: { query: { workspace } }, signal })),
  /** The folders of `path` (absent: the home folder) and the recent workspaces, for a workspace picker. */
  dirs: (path?: string, hidden = false) =>
    ok(client.GET("/api/fs/dirs", { params: { query: { ...(path ? { path } : {}), ...(hidden ? { hidden } : {}) } } })),

  getWebSearch: () => ok(client.GET("/api/settings/websearch")),
  putWebSearch: (p: WebSearchSettingsUpdate) =>
    ok(client.PUT("/api/settings/websearch", { body: p })),

  mcpServers: () => ok(client.GET("/api/mcp/servers")),
  /** (Re)connect: answers once the server is connected and its tools listed (at most 30 s). */
  connectMcp: (name: string) =>
    ok(client.POST("/api/mcp/servers/{name}/connect", { params: { path: { name } } })),
  disconnectMcp: (name: string) =>
    ok(client.POST("/api/mcp/servers/{name}/disconnect", { params: { path: { name } } })),
  /** The server's workspace's memories and the user's; `q`: any of its words, best first (else newest first). */
  memories: (q = "", signal?: AbortSignal) =>
    ok(client.GET("/api/memories", { params: { query: q.trim() ? { q: q.trim() } : {} }, signal })),
  /** 422 when the text is blank or longer than 2,000 characters; 404 when it is gone. */
  patchMemory: (id: string, text: string) => ok(client.PATCH("/api/memories/{id}", { ...byId(id), body: { text } })),
  deleteMemory: (id: string) => ok(client.DELETE("/api/memories/{id}", byId(id))),
  /** The Agent Skills of the server's workspace (its own only once trusted) and the user's; what was left out. */
  skills: () => ok(client.GET("/api/skills")),
  /** Turn a skill on or off in the server's workspace (off: listed, never offered nor a command). */
  switchSkill: (name: string, enabled: boolean) =>
    ok(client.PUT("/api/skills/{name}", { params: { path: { name } }, body: { enabled } })),
  /** Trust the workspace's skills as they were shown (`hash`): 409 when they changed since. */
  trustSkills: (hash: string) => ok(client.POST("/api/skills/trust", { body: { hash } })),
  /** The hooks the server's workspace's sessions run, and every hooks file found. */
  hooks: () => ok(client.GET("/api/hooks")),
  /** Trust the workspace's hooks as they were shown (`hash`): 409 when they changed since. */
  trustHooks: (hash: string) => ok(client.POST("/api/hooks/trust", { body: { hash } })),
  /** The agents a session of the server's workspace can run as: `build`, `plan`, then the custom ones. */
  agents: () => ok(client.GET("/api/agents")),
  /** Trust the workspace's agents as they were shown (`hash`): 409 when they changed since. */
  trustAgents: (hash: string) => ok(client.POST("/api/agents/trust", { body: { hash } })),
  /** The plugins installed in the state directory's `plugins/`, each on or off. */
  plugins: () => ok(client.GET("/api/plugins")),
  /** Turn a plugin on (its parts count from the next run, its MCP servers are added) or off (admin; 404: not installed). */
  switchPlugin: (name: string, enabled: boolean) =>
    ok(client.PUT("/api/plugins/{name}", { params: { path: { name } }, body: { enabled } })),
  workspaceConfig: () => ok(client.GET("/api/workspace/config")),
  /** Approve the file as it was shown (`hash`): 409 when it changed since. */
  approveWorkspaceConfig: (hash: string) => ok(client.POST("/api/workspace/config/approve", { body: { hash } })),
};

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/**
 * The commit panel's calls: the user's own git actions in a session's repository (never an
 * approval). 422 from `state` when the session's workspace is no git repository.
 */
export const gitApi = {
  state: (id: string) => ok(client.GET("/api/sessions/{id}/git", byId(id))),
  /** `all`: every tracked change (`git commit -a`); `amend`: replace the last commit. */
  commit: (id: string, message: string, all: boolean, amend: boolean) =>
    ok(client.POST("/api/sessions/{id}/git/commit", { ...byId(id), body: { message, all, amend } })),
  /** A force push (`--force-with-lease`) needs `confirm`: the branch's name as the user typed it. */
  push: (id: string, force: boolean, confirm: string | null, remote?: string) =>
    ok(
      client.POST("/api/sessions/{id}/git/push", {
        ...byId(id),
        body: { ...(remote ? { remote } : {}), ...(force ? { force, confirm } : {}) },
      }),
    ),
  /** A worktree session's branch into the main checkout: 409 `conflicts` names the files. */
  apply: (id: string, how: "merge" | "cherry_pick") =>
    ok(client.POST("/api/sessions/{id}/git/apply", { ...byId(id), body: { how } })),
  pullRequest: (id: string, title: string, body: string, base?: string) =>
    ok(client.POST("/api/sessions/{id}/git/pr", { ...byId(id), body: { title, body, ...(base ? { base } : {}) } })),
};
