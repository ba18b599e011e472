// Thin typed wrapper over the REST API. Same-origin cookie auth; every
// state-changing request sends JSON (the server rejects anything else).
import type {
  ApprovalDecision,
  CreateSessionParams,
  ModelInfo,
  Page,
  PatchSessionParams,
  ProviderSettings,
  ProviderSettingsUpdate,
  RunCreated,
  ServerConfig,
  ServerEvent,
  Session,
  Task,
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

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called whenever any request answers 401 (cookie expired or revoked). */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined || method !== "GET") {
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "network", "The server cannot be reached.");
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

export const api = {
  whoami: () => request<WhoAmI>("GET", "/api/whoami"),
  login: (password: string) => request<unknown>("POST", "/api/login", { password }),
  logout: () => request<void>("POST", "/api/logout", {}),
  config: () => request<ServerConfig>("GET", "/api/config"),

  listSessions: () => request<Page<Session>>("GET", "/api/sessions?limit=200"),
  createSession: (p: CreateSessionParams) => request<Session>("POST", "/api/sessions", p),
  getSession: (id: string) => request<Session>("GET", `/api/sessions/${enc(id)}`),
  patchSession: (id: string, p: PatchSessionParams) =>
    request<Session>("PATCH", `/api/sessions/${enc(id)}`, p),
  deleteSession: (id: string) => request<void>("DELETE", `/api/sessions/${enc(id)}`, {}),

  sendMessage: (id: string, text: string) =>
    request<RunCreated>("POST", `/api/sessions/${enc(id)}/messages`, { text }),
  events: (id: string, after: number, limit = 1000) =>
    request<Page<ServerEvent>>(
      "GET",
      `/api/sessions/${enc(id)}/events?after=${after}&limit=${limit}`,
    ),
  cancelRun: (runId: string) => request<unknown>("POST", `/api/runs/${enc(runId)}/cancel`, {}),

  decideApproval: (id: string, decision: ApprovalDecision) =>
    request<unknown>("POST", `/api/approvals/${enc(id)}`, { decision }),
  answerQuestion: (id: string, answers: (string | null)[]) =>
    request<unknown>("POST", `/api/questions/${enc(id)}`, { answers }),
  decidePlan: (id: string, decision: "approved" | "feedback" | "skipped", feedback?: string) =>
    request<unknown>("POST", `/api/plans/${enc(id)}/decision`, { decision, feedback }),

  tasks: (id: string) => request<Page<Task> | Task[]>("GET", `/api/sessions/${enc(id)}/tasks`),
  stopTask: (id: string) => request<unknown>("POST", `/api/tasks/${enc(id)}/stop`, {}),

  getProvider: () => request<ProviderSettings>("GET", "/api/settings/provider"),
  putProvider: (p: ProviderSettingsUpdate) =>
    request<ProviderSettings>("PUT", "/api/settings/provider", p),
  models: () => request<{ data: ModelInfo[] }>("GET", "/api/models"),
};

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
