import type { Session } from "../api/types";
import { linkClick, sessionPath } from "../state/router";
import { useSessionById } from "../state/subagents";
import { VisibleText } from "./VisibleText";
import "../subagents.css";

/** "Subagent of <parent title>", linking back: a child session names the session that started it. */
export function SubagentBanner({ session }: { session: Session }) {
  const parentId = session.parent_id ?? null;
  const parent = useSessionById(parentId);
  if (!parentId) return null;
  const path = sessionPath(parentId);
  const title = parent === "gone" ? "a deleted session" : parent ? parent.title || "Untitled session" : "its parent session";
  return (
    <p class="subagent-banner" data-parent-id={parentId}>
      Subagent of{" "}
      {parent === "gone" ? (
        title
      ) : (
        <a href={path} onClick={(e) => linkClick(e, path)}>
          <VisibleText text={title} />
        </a>
      )}
    </p>
  );
}
