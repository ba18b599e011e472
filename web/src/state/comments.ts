// A session's line comments (on its review and on its plan revisions) as the transcript keeps
// them: a list in the order they were written, changed by the `review_comment_*` events and by
// the REST list read when the session opens. Pure: each change returns a new list (or null when
// nothing changed), so a view can compare lists by identity.
import type { CommentAnswer, ReviewComment } from "../api/types";

/** Oldest first, ties by id. */
const order = (a: ReviewComment, b: ReviewComment) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `c` put in the list: added, or replacing the copy held unless that one is newer. Null when the
 * list stays as it is.
 */
export function putComment(list: readonly ReviewComment[], c: ReviewComment): ReviewComment[] | null {
  const i = list.findIndex((x) => x.id === c.id);
  if (i < 0) return [...list, c].sort(order);
  if (list[i].updated_at > c.updated_at) return null;
  const next = list.slice();
  next[i] = c;
  return next;
}

/** The list without the comment `id` (null: it was not in it). */
export function dropComment(list: readonly ReviewComment[], id: string): ReviewComment[] | null {
  return list.some((x) => x.id === id) ? list.filter((x) => x.id !== id) : null;
}

/** Drafts not sent yet, of `target` (and of the plan revision `planId`, for a plan). */
export function drafts(list: readonly ReviewComment[], target: "diff" | "plan", planId?: string): ReviewComment[] {
  return list.filter((c) => c.status === "draft" && c.target === target && (planId === undefined || c.plan_id === planId));
}

/**
 * The answer to each comment the plan revisions gave (`answers` of the revision that followed a
 * "Request changes"), by comment id; the revision that gave it alongside.
 */
export function planAnswers(revisions: readonly { answers?: CommentAnswer[]; revision: number }[]): Map<string, { text: string; revision: number }> {
  const out = new Map<string, { text: string; revision: number }>();
  for (const r of revisions) for (const a of r.answers ?? []) out.set(a.comment, { text: a.text, revision: r.revision });
  return out;
}

/** What a comment's status reads as on its badge. */
export function statusLabel(c: ReviewComment): string {
  switch (c.status) {
    case "draft":
      return "draft";
    case "sent":
      return "sent";
    case "answered":
      return "answered";
    case "resolved":
      return c.resolved_by === "lines_changed" ? "resolved: lines changed" : "resolved";
  }
}

/** "line 4" or "lines 4–7". */
export function linesLabel(c: { start_line: number; end_line: number }): string {
  return c.start_line === c.end_line ? `line ${c.start_line}` : `lines ${c.start_line}–${c.end_line}`;
}
