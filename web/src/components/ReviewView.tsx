import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ReviewComment, ReviewFile, SessionReview } from "../api/types";
import { useAction } from "../state/action";
import { drafts } from "../state/comments";
import { type DiffLayout, storeLayout, storedLayout } from "../state/diffLayout";
import { useOnReconnect } from "../state/reconnect";
import { type LineSelection, type ViewedMarks, fileHash, fileTree, keepUnchanged, markViewed, pickLine, readViewed, treeOrder } from "../state/review";
import { navigate, sessionPath } from "../state/router";
import { FormError } from "./FormError";
import { type ReviewActions, ReviewFileRow } from "./ReviewFile";
import { ReviewTree } from "./ReviewTree";
import { VisibleText } from "./VisibleText";
import "../review.css";

const NO_COMMENTS: readonly ReviewComment[] = [];
/** The first files' diffs are drawn with the list (the others once they come near the view). */
const EAGER = 4;
/** Files listed at once, and added each frame after. */
const FIRST_FILES = 12;
const MORE_FILES = 60;
/** How far beyond the view a file's diff is drawn ahead of being scrolled to. */
const NEAR_MARGIN = "800px 0px";

/**
 * A session's review, like a pull request's: everything the session changed as one diff (against
 * its worktree's base, or against how each file was before the session first changed it), a file
 * tree beside it, unified or split, each file markable as viewed, each hunk staged (in a
 * worktree), unstaged or reverted, and line comments sent to the agent together ("Send
 * comments"), whose answers show under them. It is read again when a run ends (the files may have
 * changed) and after a reconnect; the comments follow the session's events.
 */
export function ReviewView({ sessionId, comments, reviewMarks }: { sessionId: string; comments: readonly ReviewComment[]; reviewMarks: number }) {
  const [review, setReview] = useState<SessionReview | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [layout, setLayout] = useState<DiffLayout>(storedLayout);
  const [sel, setSel] = useState<LineSelection | null>(null);
  const [viewed, setViewed] = useState<ViewedMarks>(() => readViewed(sessionId));
  const [jump, setJump] = useState<{ path: string; n: number } | null>(null);
  /** How many files are in the list so far: a long review's are added a chunk a frame. */
  const [listed, setListed] = useState(FIRST_FILES);
  /** At phone width the file tree folds away above the files. */
  const [treeOpen, setTreeOpen] = useState(false);
  const files = useRef<HTMLDivElement>(null);
  const reads = useRef(0);

  const load = () => {
    const mine = ++reads.current;
    api.review(sessionId).then(
      (r) => {
        if (mine !== reads.current) return;
        setReview((cur) => keepUnchanged(cur, r));
        setLoadError(null);
      },
      (e) => mine === reads.current && setLoadError(errorText(e)),
    );
  };
  useEffect(load, [sessionId, reviewMarks]);
  useOnReconnect(load);

  const latest = useRef({ viewed, ordered: [] as ReviewFile[] });
  const [actions] = useState<ReviewActions>(() => {
    let io: IntersectionObserver | null = null;
    const waiting = new Map<Element, () => void>();
    return {
      sessionId,
      pick: (path, side, line, extend) => setSel((cur) => pickLine(cur, path, side, line, extend)),
      unpick: () => setSel(null),
      observe: (el, near) => {
        io ??= new IntersectionObserver(
          (entries) => {
            for (const e of entries) {
              if (!e.isIntersecting) continue;
              io?.unobserve(e.target);
              const fn = waiting.get(e.target);
              waiting.delete(e.target);
              fn?.();
            }
          },
          { root: files.current, rootMargin: NEAR_MARGIN },
        );
        waiting.set(el, near);
        io.observe(el);
        return () => {
          waiting.delete(el);
          io?.unobserve(el);
        };
      },
      setReview: (r) => {
        // An older read on its way must not undo what the action did.
        reads.current++;
        setReview((cur) => keepUnchanged(cur, r));
      },
      setViewed: (path, hash) => setViewed(markViewed(sessionId, latest.current.viewed, path, hash)),
    };
  });

  // The tree is built again only when its files, their status or counts changed.
  const treeKey = useMemo(() => (review?.files ?? []).map((f) => `${f.path}\u0000${f.status}\u0000${f.added}\u0000${f.removed}`).join("\n"), [review]);
  const tree = useMemo(() => fileTree(review?.files ?? []), [treeKey]);
  const ordered = useMemo(() => {
    const now = new Map((review?.files ?? []).map((f) => [f.path, f]));
    return treeOrder(tree).map((f) => now.get(f.path) ?? f);
  }, [tree, review]);
  latest.current = { viewed, ordered };
  const hashes = useMemo(() => new Map(ordered.map((f) => [f.path, fileHash(f)])), [ordered]);
  const viewedPaths = ordered.filter((f) => viewed[f.path] === hashes.get(f.path)).map((f) => f.path);
  const viewedNow = useMemo(() => new Set(viewedPaths), [viewedPaths.join("\n")]);
  const byPath = useMemo(() => {
    const m = new Map<string, ReviewComment[]>();
    for (const c of comments) {
      if (c.target !== "diff") continue;
      const list = m.get(c.path);
      if (list) list.push(c);
      else m.set(c.path, [c]);
    }
    return m;
  }, [comments]);
  const openCounts = useMemo(() => {
    const m = new Map<string, number>();
    for (const [path, list] of byPath) m.set(path, list.filter((c) => c.status !== "resolved").length);
    return m;
  }, [byPath]);
  const toSend = drafts(comments, "diff").length;

  const send = useAction(() => api.sendComments(sessionId, "diff"));
  const gitDiff = useAction(async () => {
    await api.sendMessage(sessionId, "!git diff HEAD");
    navigate(sessionPath(sessionId));
  });

  // The first files show at once, the others a chunk a frame: the review answers the user
  // meanwhile, however many files it holds.
  useEffect(() => {
    if (listed >= ordered.length) return;
    const f = requestAnimationFrame(() => setListed((n) => n + MORE_FILES));
    return () => cancelAnimationFrame(f);
  }, [listed, ordered.length]);

  const open = (path: string) => {
    setTreeOpen(false);
    const at = latest.current.ordered.findIndex((f) => f.path === path);
    setListed((n) => Math.max(n, at + 1));
    setJump((j) => ({ path, n: (j?.n ?? 0) + 1 }));
  };
  // The tree is drawn again only when what it shows changed (not on each line picked).
  const treeView = useMemo(
    () => <ReviewTree nodes={tree} viewed={viewedNow} comments={openCounts} onOpen={open} />,
    [tree, viewedNow, openCounts],
  );

  const changeLayout = (l: DiffLayout) => {
    setLayout(l);
    storeLayout(l);
  };

  if (!review) {
    return (
      <section class="review" aria-label="Review">
        {loadError ? <FormError error={`The review could not be read: ${loadError}`} /> : <p class="muted pad">Reading the changes…</p>}
      </section>
    );
  }

  const wt = review.worktree;
  const n = review.files.length;
  return (
    <section class="review" aria-label="Review" data-base={review.base}>
      <div class="rv-head">
        <h2 class="rv-title">Review</h2>
        {wt && (
          <span class="rv-branch small">
            Branch <code>{wt.branch}</code> from <code>{wt.base}</code> at <code title={wt.base_commit}>{wt.base_commit.slice(0, 7)}</code>
          </span>
        )}
        {review.base === "snapshots" && <span class="muted small">Each file against how it was before this session first changed it.</span>}
        <span class="rv-totals small" data-files={n}>
          {n === 1 ? "1 file" : `${n} files`},{" "}
          <span class="diff-stat">
            <span class="add">+{review.added}</span> <span class="del">−{review.removed}</span>
          </span>
        </span>
        <span class="spacer" />
        <span class="seg" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={layout === "unified"} onClick={() => changeLayout("unified")}>
            Unified
          </button>
          <button type="button" aria-pressed={layout === "split"} onClick={() => changeLayout("split")}>
            Split
          </button>
        </span>
        <button type="button" class="btn small primary rv-send" disabled={toSend === 0 || send.busy} onClick={() => void send.run()}>
          Send comments ({toSend})
        </button>
      </div>
      <FormError error={send.error ?? loadError} small />
      {review.base === "none" && (
        <div class="notice rv-no-base">
          <p>
            <VisibleText text={review.no_base || "This session has nothing to compare its files against."} />
          </p>
          <button type="button" class="btn small" disabled={gitDiff.busy} onClick={() => void gitDiff.run()}>
            Show git diff HEAD
          </button>
          <FormError error={gitDiff.error} small />
        </div>
      )}
      {review.truncated && <p class="notice small">Only the first {n} changed files are listed.</p>}
      {n === 0 && review.base !== "none" && <p class="muted pad rv-empty">This session changed no file.</p>}
      {n > 0 && (
        <div class={`rv-body${treeOpen ? " tree-open" : ""}`}>
          <nav class="rv-tree" aria-label="Changed files">
            <button type="button" class="btn small ghost rv-tree-toggle" aria-expanded={treeOpen} onClick={() => setTreeOpen(!treeOpen)}>
              Files ({n})
            </button>
            <div class="rv-tree-box">{treeView}</div>
          </nav>
          <div class="rv-files" ref={files}>
            {ordered.slice(0, listed).map((f, i) => (
              <ReviewFileRow
                key={f.path}
                file={f}
                hash={hashes.get(f.path) ?? ""}
                viewed={viewedNow.has(f.path)}
                layout={layout}
                comments={byPath.get(f.path) ?? NO_COMMENTS}
                sel={sel?.path === f.path ? sel : null}
                canStage={review.base === "worktree" || review.stageable === true}
                jump={jump?.path === f.path ? jump.n : 0}
                eager={i < EAGER}
                actions={actions}
              />
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
