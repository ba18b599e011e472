/** Each status a subagent can be shown with: its words and its colour. */
const SHOWN: Record<string, { label: string; cls: string }> = {
  queued: { label: "queued", cls: "running" },
  running: { label: "running", cls: "running" },
  waiting: { label: "needs you", cls: "waiting" },
  waiting_for_user: { label: "needs you", cls: "waiting" },
  completed: { label: "completed", cls: "ok" },
  failed: { label: "failed", cls: "fail" },
  interrupted: { label: "interrupted", cls: "fail" },
  cancelled: { label: "cancelled", cls: "warn" },
  idle: { label: "idle", cls: "idle" },
};

/**
 * A subagent's status: a session's (`idle`, `running`, `waiting`) or how `task_wait` /
 * `task_status` told it (`completed`, `waiting_for_user`, …).
 */
export function SubagentStatus({ status }: { status: string }) {
  const s = SHOWN[status] ?? { label: status || "unknown", cls: "idle" };
  return <span class={`badge subagent-status subagent-${s.cls}`}>{s.label}</span>;
}
