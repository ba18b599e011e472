// A session's subagents as its page shows them: the child sessions its `task` calls started
// (`GET /api/sessions/{id}/children`) and what they ask the user through it (the items of
// `GET /api/sessions/{id}/pending` whose `session` is another one). Both are read again when the
// session's events say they changed (`subagentMarks`, `childMarks`) and after a reconnect; a
// child's live status comes with the session list (its `session_updated` frames).
import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api/client";
import type { ChildPendingStatus, PendingApproval, PendingPlan, PendingQuestion, Session } from "../api/types";
import type { Item } from "./items";
import { useObservable } from "./observable";
import { useOnReconnect } from "./reconnect";
import { sessions } from "./sessions";
import { SUBAGENT_TOOLS } from "./transcript";

/** What the subagents of a session ask the user, oldest first in each list. */
export interface ChildPrompts {
  approvals: PendingApproval[];
  questions: PendingQuestion[];
  plans: PendingPlan[];
}

const NONE: ChildPrompts = { approvals: [], questions: [], plans: [] };

export function childPromptCount(p: ChildPrompts): number {
  return p.approvals.length + p.questions.length + p.plans.length;
}

/**
 * The subagents' prompts waiting in session `id` (at any depth below it): read once the
 * transcript has its events (`marks` not null), on each `child_pending` and after a reconnect;
 * one the events say was answered or expired is left out at once. Every session above an asking
 * subagent hears its `child_pending`, so a prompt answered in this page or another goes with the
 * event that follows.
 */
export function useChildPrompts(id: string, marks: number | null, closed: ReadonlyMap<string, ChildPendingStatus>): ChildPrompts {
  const [read, setRead] = useState<ChildPrompts>(NONE);
  const [tries, setTries] = useState(0);
  useEffect(() => {
    if (marks === null) return;
    let live = true;
    const theirs = <T extends { session: string }>(list: T[]): T[] => list.filter((x) => x.session !== id);
    api.pending(id).then(
      (p) => {
        if (!live) return;
        setRead({ approvals: theirs(p.approvals), questions: theirs(p.questions), plans: theirs(p.plans) });
      },
      () => undefined, // kept as it was; read again on the next change or reconnect
    );
    return () => {
      live = false;
    };
  }, [id, marks, tries]);
  useOnReconnect(() => setTries((n) => n + 1));
  const open = (pid: string) => (closed.get(pid) ?? "pending") === "pending";
  const prompts = useMemo(
    () => ({
      approvals: read.approvals.filter((a) => open(a.approval_id)),
      questions: read.questions.filter((q) => open(q.question_id)),
      plans: read.plans.filter((p) => open(p.plan_id)),
    }),
    [read, marks],
  );
  return prompts;
}

/**
 * The child sessions of session `id`, oldest first: read once the transcript has its events
 * (`marks` not null), when `marks` moves and after a reconnect; each as the newest of that read
 * and the live session list.
 */
export function useSubagents(id: string, marks: number | null): Session[] {
  const [read, setRead] = useState<Session[]>([]);
  const [tries, setTries] = useState(0);
  const list = useObservable(sessions);
  useEffect(() => {
    if (marks === null) return;
    let live = true;
    api.children(id).then(
      (c) => live && setRead(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [id, marks, tries]);
  useOnReconnect(() => setTries((n) => n + 1));
  // The live list first: on a tie (a status change keeps updated_at) it is the newest word.
  return read.map((c) => {
    const l = list?.find((s) => s.id === c.id);
    return l && l.updated_at >= c.updated_at ? l : c;
  });
}

/**
 * A session by id for its title: from the live list or the `known` ones, else read once (null
 * until known, "gone" when it cannot be read).
 */
export function useSessionById(id: string | null, known: readonly Session[] = []): Session | null | "gone" {
  const list = useObservable(sessions);
  const fromList = id ? (list?.find((s) => s.id === id) ?? known.find((s) => s.id === id) ?? null) : null;
  const [fetched, setFetched] = useState<{ id: string; s: Session | "gone" } | null>(null);
  useEffect(() => {
    if (!id || fromList) return;
    let live = true;
    api.getSession(id).then(
      (s) => live && setFetched({ id, s }),
      () => live && setFetched({ id, s: "gone" }),
    );
    return () => {
      live = false;
    };
  }, [id, !!fromList]);
  if (fromList) return fromList;
  return fetched && fetched.id === id ? fetched.s : null;
}

// ---- What the subagent tools returned -------------------------------------

/** One subagent as `task_wait` and `task_status` describe it to the model. */
export interface ChildView {
  id: string;
  description: string;
  agent: string;
  mode: string;
  /** `queued`, `running`, `waiting_for_user`, `completed`, `failed`, `cancelled` or `interrupted`. */
  status: string;
  answer: string | null;
  error: string | null;
}

/** A subagent tool's result, read from the JSON text the model saw. */
export type SubagentResult =
  | { kind: "started"; id: string; agent: string; mode: string }
  | { kind: "views"; finished: boolean | null; subagents: ChildView[] }
  | { kind: "sent"; id: string; status: string };

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function childView(v: unknown): ChildView | null {
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (!str(o.id)) return null;
  return {
    id: str(o.id),
    description: str(o.description),
    agent: str(o.agent),
    mode: str(o.mode),
    status: str(o.status),
    answer: typeof o.answer === "string" ? o.answer : null,
    error: typeof o.error === "string" ? o.error : null,
  };
}

/** The result of `task`, `task_wait`, `task_status` or `send_message` (null: another tool, or not JSON). */
export function subagentResult(tool: string, text: string): SubagentResult | null {
  if (!SUBAGENT_TOOLS.has(tool)) return null;
  let o: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null) return null;
    o = v as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (tool) {
    case "task":
      return str(o.id) ? { kind: "started", id: str(o.id), agent: str(o.agent), mode: str(o.mode) } : null;
    case "task_wait":
    case "task_status": {
      const list = Array.isArray(o.subagents) ? o.subagents.map(childView).filter((x): x is ChildView => x !== null) : [];
      return { kind: "views", finished: typeof o.finished === "boolean" ? o.finished : null, subagents: list };
    }
    case "send_message":
      return str(o.id) ? { kind: "sent", id: str(o.id), status: str(o.status) } : null;
    default:
      return null;
  }
}

/** How each subagent's latest turn ended, as the newest subagent tool result held says (by id). */
export function reportedStatus(items: readonly Item[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const it of items) {
    if (it.kind !== "tool" || !it.result?.ok) continue;
    const r = subagentResult(it.tool, it.result.text);
    if (!r) continue;
    if (r.kind === "views") for (const v of r.subagents) out.set(v.id, v.status);
    // A new turn was started: what was said of the last one no longer holds.
    else out.set(r.id, r.kind === "sent" ? "running" : "queued");
  }
  return out;
}
