import type { SessionWorktree } from "../api/types";
import { VisibleText } from "./VisibleText";
import "../review.css";

/** The branch a session in a worktree of its own works on; the title says where and from what. */
export function WorktreeChip({ worktree }: { worktree: SessionWorktree }) {
  return (
    <span
      class="chip chip-branch"
      data-branch={worktree.branch}
      title={`Its own worktree (${worktree.dir}) on the branch ${worktree.branch}, from ${worktree.base} at ${worktree.base_commit.slice(0, 7)}`}
    >
      <span aria-hidden="true">⎇ </span>
      <span class="visually-hidden">Branch </span>
      <VisibleText text={worktree.branch} />
    </span>
  );
}
