import { connection } from "../api/socket";
import type { SessionStatus } from "../api/types";
import { useObservable } from "../state/observable";

/**
 * A session's live status. While the server cannot be reached, what it does now is unknown: a
 * session last seen working says so instead of "running".
 */
export function StatusBadge({ status }: { status: SessionStatus | string }) {
  const conn = useObservable(connection.state);
  const lost = conn === "reconnecting" || conn === "offline";
  if (lost && (status === "running" || status === "waiting")) {
    return (
      <span class="badge badge-unknown" data-status="unknown" title="The server cannot be reached: what this session does now is not known until it reconnects.">
        {status === "running" ? "was running" : "was waiting"} · server unreachable
      </span>
    );
  }
  if (status === "running") return <span class="badge badge-running">running</span>;
  if (status === "waiting") return <span class="badge badge-waiting">needs you</span>;
  return null;
}
