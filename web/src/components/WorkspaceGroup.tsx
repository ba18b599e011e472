import { useId } from "preact/hooks";
import { useAction } from "../state/action";
import { createSessionIn } from "../state/projects";
import type { WorkspaceGroup as Group } from "../util/projects";
import { ActionMenu } from "./ActionMenu";
import { FormError } from "./FormError";
import { SessionListItem } from "./SessionListItem";

/**
 * One project of the session list: the folder's name (its whole path under it) with a "⋯" menu
 * (New session here: one with the server's defaults in that folder, opened), then its sessions.
 */
export function WorkspaceGroup({ group, activeId, headingLevel }: { group: Group; activeId: string | null; headingLevel: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const headId = useId();
  const create = useAction(() => createSessionIn(group.workspace));
  return (
    <li class="ws-group" data-workspace={group.workspace}>
      <div class="ws-group-head">
        <div class="ws-group-name">
          <Heading id={headId} title={group.workspace}>
            {group.name}
          </Heading>
          <span class="ws-group-path" title={group.workspace}>
            {group.workspace}
          </span>
        </div>
        <ActionMenu
          class="ws-group-menu"
          label={`Actions for the project ${group.name}`}
          entries={[{ label: "New session here", onSelect: () => void create.run() }]}
        />
      </div>
      <FormError error={create.error} small />
      <ul class="ws-sessions" role="list" aria-labelledby={headId}>
        {group.sessions.map((s) => (
          <SessionListItem key={s.id} session={s} active={s.id === activeId} showWorkspace={false} />
        ))}
      </ul>
    </li>
  );
}
