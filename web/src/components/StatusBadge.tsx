import type { SessionStatus } from "../api/types";

export function StatusBadge({ status }: { status: SessionStatus | string }) {
  if (status === "running") return <span class="badge badge-running">running</span>;
  if (status === "waiting") return <span class="badge badge-waiting">needs you</span>;
  return null;
}
