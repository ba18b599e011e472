import type { Session } from "../api/types";
import { linkClick, sessionPath } from "../state/router";
import { relativeTime } from "../util/format";
import { StatusBadge } from "./StatusBadge";

export function SessionListItem({ session: s, active }: { session: Session; active: boolean }) {
  const path = sessionPath(s.id);
  return (
    <li>
      <a
        class={`session-item${active ? " active" : ""}`}
        href={path}
        onClick={(e) => linkClick(e, path)}
        aria-current={active ? "page" : undefined}
        data-session-id={s.id}
      >
        <span class="session-item-top">
          <span class="session-title">{s.title || "Untitled session"}</span>
          <StatusBadge status={s.status} />
        </span>
        <span class="session-item-meta">
          <span class="session-ws" title={s.workspace}>
            {s.workspace}
          </span>
          <span class="session-time">{relativeTime(s.updated_at)}</span>
        </span>
      </a>
    </li>
  );
}
