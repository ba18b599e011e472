import { Component } from "preact";
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { CommentSide, ReviewComment, ReviewFile as File, SessionReview } from "../api/types";
import type { DiffLayout } from "../state/diffLayout";
import { type LineSelection, lineCount, placeComments } from "../state/review";
import { linesLabel } from "../state/comments";
import { CommentThread } from "./CommentThread";
import { ReviewHunk } from "./ReviewHunk";
import { visible } from "./VisibleText";

/** What the files of a review do through the review itself (one object, the same for its whole life). */
export interface ReviewActions {
  sessionId: string;
  /** A line's number was clicked (`extend`: with Shift). */
  pick(path: string, side: CommentSide, line: number, extend: boolean): void;
  /** The lines picked are no longer (the comment was written, or cancelled). */
  unpick(): void;
  /** Call `near` once `el` comes near the view (its diff is drawn then); returns the unsubscribe. */
  observe(el: Element, near: () => void): () => void;
  /** The review as a hunk's action answered it. */
  setReview(r: SessionReview): void;
  /** Mark the file viewed at `hash` (null: not viewed). */
  setViewed(path: string, hash: string | null): void;
}

export interface FileProps {
  file: File;
  /** The fingerprint of its diff (what "Viewed" is kept against). */
  hash: string;
  viewed: boolean;
  layout: DiffLayout;
  /** Its comments, oldest first. */
  comments: readonly ReviewComment[];
  /** The lines picked in it for a new comment (null: none here). */
  sel: LineSelection | null;
  canStage: boolean;
  /** Moves when the file list asks for this file: it opens and comes into view. */
  jump: number;
  /** Among the first files: its diff is drawn at once, not once it comes near the view. */
  eager: boolean;
  actions: ReviewActions;
}

/** Lines of a file drawn before "Show all". */
const MAX_LINES = 2000;
/** The height a diff line, a hunk's header and a file's header take, for the room a file not drawn yet holds (px). */
const LINE_PX = 24;
const HUNK_PX = 34;
const HEAD_PX = 42;

/**
 * One file of a review, drawn again only when what it shows changed (a review of hundreds of
 * files redraws one file when one changes).
 */
export class ReviewFileRow extends Component<FileProps> {
  shouldComponentUpdate(next: FileProps): boolean {
    const p = this.props;
    return (
      p.file !== next.file ||
      p.hash !== next.hash ||
      p.viewed !== next.viewed ||
      p.layout !== next.layout ||
      p.sel !== next.sel ||
      p.canStage !== next.canStage ||
      p.jump !== next.jump ||
      p.comments.length !== next.comments.length ||
      p.comments.some((c, i) => c !== next.comments[i])
    );
  }

  render(p: FileProps) {
    return <ReviewFile {...p} />;
  }
}

/**
 * A file's header (its path, status, counts and the Viewed mark; a button that folds it) and its
 * diff. A viewed file starts folded. The diff is drawn once the file comes near the view (until
 * then the file holds about the room it will take, and is neither laid out nor painted while far
 * from the view: `content-visibility`).
 */
function ReviewFile({ file, hash, viewed, layout, comments, sel, canStage, jump, eager, actions }: FileProps) {
  const [open, setOpen] = useState(!viewed);
  const [near, setNear] = useState(eager);
  const [all, setAll] = useState(false);
  const root = useRef<HTMLElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const bodyId = useId();
  const placed = useMemo(() => placeComments(file, comments), [file, comments]);
  const outside = file.outside ?? [];
  const total = lineCount(file);

  // Marked viewed: folded; no longer viewed (unmarked, or the file changed): open.
  const firstRun = useRef(true);
  useEffect(() => {
    if (firstRun.current) {
      firstRun.current = false;
      return;
    }
    setOpen(!viewed);
  }, [viewed]);

  useEffect(() => {
    const el = root.current;
    if (!open || near || !el) return;
    return actions.observe(el, () => setNear(true));
  }, [open, near]);

  useLayoutEffect(() => {
    if (!jump) return;
    setOpen(true);
    setNear(true);
    root.current?.scrollIntoView({ block: "start" });
    toggle.current?.focus({ preventScroll: true });
  }, [jump]);

  let budget = all ? Number.POSITIVE_INFINITY : MAX_LINES;
  const table = (hunks: File["hunks"], own: boolean) => (
    <div class="rv-scroll">
      <table class={`diff-table diff-${layout} rv-table`}>
        {hunks.map((h) => {
          const b = budget;
          budget -= h.lines.length;
          return b > 0 ? (
            <ReviewHunk
              key={h.header}
              path={file.path}
              hunk={h}
              layout={layout}
              at={own ? placed.at : null}
              sel={own ? sel : null}
              canStage={canStage}
              budget={b}
              actions={actions}
            />
          ) : null;
        })}
      </table>
    </div>
  );

  return (
    <section
      class="rv-file"
      ref={root}
      data-path={file.path}
      data-status={file.status}
      data-viewed={viewed ? "true" : undefined}
      // Until it is drawn (far from the view), it holds about the room its diff will take.
      style={{ containIntrinsicSize: `auto ${open ? Math.min(HEAD_PX + total * LINE_PX + file.hunks.length * HUNK_PX, 40_000) : HEAD_PX}px` }}
    >
      <header class="rv-file-head">
        <h3 class="rv-file-title">
          <button type="button" ref={toggle} class="rv-file-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
            <span class="rv-path">{visible(file.path)}</span>
          </button>
        </h3>
        {file.status === "added" && <span class="badge badge-new">new file</span>}
        {file.status === "deleted" && <span class="badge badge-del">deleted</span>}
        <span class="diff-stat small">
          <span class="add">+{file.added}</span> <span class="del">−{file.removed}</span>
        </span>
        <label class="rv-viewed small">
          <input type="checkbox" checked={viewed} onChange={(e) => actions.setViewed(file.path, (e.target as HTMLInputElement).checked ? hash : null)} />
          Viewed
        </label>
      </header>
      <div class="rv-file-body" id={bodyId} hidden={!open}>
        {open && near && (
          <>
            {file.binary && <p class="muted small pad">Not text, or over 1 MiB: no diff is shown.</p>}
            {!file.binary && file.hunks.length === 0 && outside.length === 0 && <p class="muted small pad">No textual changes.</p>}
            {file.hunks.length > 0 && table(file.hunks, true)}
            {outside.length > 0 && (
              <section class="rv-outside" aria-label={`Changed outside this session: ${file.path}`}>
                <h4>Changed outside this session</h4>
                <p class="muted small">After this session last changed the file, something else did (a hand edit, another session).</p>
                {table(outside, false)}
              </section>
            )}
            {budget < 0 && (
              <button type="button" class="btn small ghost rv-more" onClick={() => setAll(true)}>
                Large diff: show all {total} lines
              </button>
            )}
            {placed.elsewhere.length > 0 && (
              <section class="rv-elsewhere" aria-label={`Comments on lines no longer shown: ${file.path}`}>
                <h4>On lines no longer shown</h4>
                {placed.elsewhere.map((c) => (
                  <CommentThread key={c.id} comment={c} where={`${linesLabel(c)} of ${file.path}`} />
                ))}
              </section>
            )}
          </>
        )}
      </div>
    </section>
  );
}
