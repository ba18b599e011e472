import type { JSX } from "preact";
import { api } from "../api/client";
import type { CommentSide, HunkActionKind, ReviewComment, ReviewHunk as Hunk } from "../api/types";
import { type DiffLine, splitRows } from "../render/diff";
import { useAction } from "../state/action";
import { linesLabel } from "../state/comments";
import { askConfirm } from "../state/confirm";
import type { DiffLayout } from "../state/diffLayout";
import { type LineSelection, anchorKey, hunkLines, picked, rowAnchors } from "../state/review";
import { keepComment } from "../state/sessions";
import { CommentForm } from "./CommentForm";
import { CommentThread } from "./CommentThread";
import { FormError } from "./FormError";
import type { ReviewActions } from "./ReviewFile";
import { visible } from "./VisibleText";

const SIGN = { add: "+", del: "−", ctx: " ", meta: "" } as const;

interface Props {
  path: string;
  hunk: Hunk;
  layout: DiffLayout;
  /**
   * The file's comments by the row they show under; null: the hunk takes no comments (it was
   * changed outside the session) and offers no action.
   */
  at: Map<string, ReviewComment[]> | null;
  sel: LineSelection | null;
  /** Stage and Unstage are offered (the review of a worktree). */
  canStage: boolean;
  /** How many of its lines to draw (the rest wait for "Show all"). */
  budget: number;
  actions: ReviewActions;
}

/**
 * One hunk of a file in the review, as a table body: its header with Stage or Unstage and Revert,
 * its lines (unified, or old and new side by side), the comments under their last lines, and the
 * form of a new comment under the lines picked. A line's number, clicked, picks it for a comment;
 * Shift-clicked, picks the lines from the one picked before.
 */
export function ReviewHunk({ path, hunk, layout, at, sel, canStage, budget, actions }: Props) {
  const act = useAction(async (action: HunkActionKind) => {
    if (action === "revert") {
      const ok = await askConfirm({
        title: `Revert this change to ${path}?`,
        body: `The lines of ${hunk.header} go back to how they were before. This cannot be undone from here.`,
        confirm: "Revert",
        danger: true,
      });
      if (!ok) return;
    }
    actions.setReview(await api.reviewHunk(actions.sessionId, path, hunk.header, action));
  });
  const cols = layout === "split" ? 4 : 3;
  const lines = hunkLines(hunk).slice(0, Math.max(0, budget));
  const rows: JSX.Element[] = [];

  const lineNo = (side: CommentSide, n: number | null) => {
    if (n === null) return "";
    if (!at) return n;
    return (
      <button
        type="button"
        class="ln-btn"
        aria-label={`Comment on ${side === "old" ? "removed " : ""}line ${n}`}
        title="Comment on this line (Shift-click: on every line from the one picked)"
        onClick={(e) => actions.pick(path, side, n, e.shiftKey)}
      >
        {n}
      </button>
    );
  };

  /** The comments and the new comment's form under a row that offers `keys`. */
  const under = (keys: string[]) => {
    if (!at) return;
    for (const k of keys) {
      for (const c of at.get(k) ?? []) {
        rows.push(
          <tr class="comment-row" key={`c:${c.id}`}>
            <td colSpan={cols}>
              <CommentThread comment={c} where={`${linesLabel(c)} of ${path}`} />
            </td>
          </tr>,
        );
      }
    }
    if (sel && keys.includes(anchorKey(sel.side, sel.end))) {
      const s = sel;
      rows.push(
        <tr class="comment-row comment-new" key="new-comment">
          <td colSpan={cols}>
            <CommentForm
              label={`Comment on ${s.side === "old" ? "removed " : ""}${linesLabel({ start_line: s.start, end_line: s.end })} of ${path}`}
              onSubmit={async (body) => {
                const c = await api.addComment(actions.sessionId, {
                  target: "diff",
                  path,
                  side: s.side,
                  start_line: s.start,
                  end_line: s.end,
                  body,
                });
                keepComment(actions.sessionId, c);
                actions.unpick();
              }}
              onCancel={actions.unpick}
            />
          </td>
        </tr>,
      );
    }
  };

  if (layout === "split") {
    splitRows(lines).forEach((r, i) => {
      const left = r.left;
      const right = r.right?.kind === "meta" ? null : r.right;
      const on = picked(sel, "old", left?.kind === "del" ? left.oldNo : null) || picked(sel, "new", right?.newNo ?? null);
      rows.push(
        <tr class={`dl${on ? " picked" : ""}`} key={`s${i}`}>
          <td class={`ln dl-${left?.kind ?? "empty"}`}>{left ? (left.kind === "del" ? lineNo("old", left.oldNo) : left.oldNo ?? "") : ""}</td>
          <td class={`code half dl-${left?.kind ?? "empty"}`}>{left && visible(left.text)}</td>
          <td class={`ln dl-${right?.kind ?? "empty"}`}>{right ? lineNo("new", right.newNo) : ""}</td>
          <td class={`code half dl-${right?.kind ?? "empty"}`}>{right && visible(right.text)}</td>
        </tr>,
      );
      under([...(left ? rowAnchors(left) : []), ...(right && right !== left ? rowAnchors(right) : [])]);
    });
  } else {
    lines.forEach((l: DiffLine, i) => {
      const on = l.kind === "del" ? picked(sel, "old", l.oldNo) : picked(sel, "new", l.newNo);
      rows.push(
        <tr class={`dl dl-${l.kind}${on ? " picked" : ""}`} key={`u${i}`}>
          <td class="ln">{l.kind === "del" ? lineNo("old", l.oldNo) : (l.oldNo ?? "")}</td>
          <td class="ln">{l.kind === "del" ? "" : lineNo("new", l.newNo)}</td>
          <td class="code">
            <span class="sign" aria-hidden="true">
              {SIGN[l.kind]}
            </span>
            {visible(l.text)}
          </td>
        </tr>,
      );
      under(rowAnchors(l));
    });
  }

  return (
    <tbody data-header={hunk.header} data-staged={hunk.staged ? "true" : undefined}>
      <tr class="hunk-head">
        <td colSpan={cols}>
          <div class="rv-hunk-bar">
            <code class="rv-hunk-header">{hunk.header}</code>
            {hunk.staged && <span class="badge badge-staged">staged</span>}
            <span class="spacer" />
            {at && canStage && (
              <button type="button" class="btn small" disabled={act.busy} onClick={() => void act.run(hunk.staged ? "unstage" : "stage")}>
                {hunk.staged ? "Unstage" : "Stage"}
              </button>
            )}
            {at && (
              <button type="button" class="btn small ghost danger" disabled={act.busy} onClick={() => void act.run("revert")}>
                Revert
              </button>
            )}
          </div>
          <FormError error={act.error} small />
        </td>
      </tr>
      {rows}
    </tbody>
  );
}
