import { useState } from "preact/hooks";
import type { Session } from "../api/types";
import { pinnedPanelStartsOpen } from "../state/layout";
import { linkClick, sessionPath } from "../state/router";
import { SubagentStatus } from "./SubagentStatus";
import { VisibleText } from "./VisibleText";
import "../subagents.css";

const ENDED = new Set(["completed", "failed", "cancelled", "interrupted"]);

/**
 * What to show of a child: its session's live status while it runs or asks, else how its latest
 * run ended (as the server lists it, else as the newest subagent tool result told the model);
 * idle only before any run of it ended.
 */
function statusOf(child: Session, reported: string | undefined): string {
  if (child.status !== "idle") return child.status;
  if (child.last_run_status && ENDED.has(child.last_run_status)) return child.last_run_status;
  return reported && ENDED.has(reported) ? reported : "idle";
}

/** The session's subagents, pinned above the composer: each one's title, status and a link to it. */
export function SubagentsPanel({ sessionId, subagents, reported }: { sessionId: string; subagents: Session[]; reported: Map<string, string> }) {
  const [open, setOpen] = useState(pinnedPanelStartsOpen);
  if (subagents.length === 0) return null;
  const busy = subagents.filter((c) => c.status !== "idle").length;
  const titleId = `subagents-title-${sessionId}`;
  return (
    <section class="subagents-panel" aria-labelledby={titleId}>
      <details open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary id={titleId}>
          Subagents <span class="muted small">{busy > 0 ? `${busy} of ${subagents.length} working` : `${subagents.length} in all`}</span>
        </summary>
        <ul class="subagents">
          {subagents.map((c) => {
            const status = statusOf(c, reported.get(c.id));
            const path = sessionPath(c.id);
            return (
              <li key={c.id} class="subagent" data-subagent-id={c.id} data-status={status}>
                <a href={path} onClick={(e) => linkClick(e, path)}>
                  <VisibleText text={c.title || "Untitled subagent"} />
                </a>
                <SubagentStatus status={status} />
                <span class="muted small">
                  {c.agent} · {c.mode}
                </span>
              </li>
            );
          })}
        </ul>
      </details>
    </section>
  );
}
