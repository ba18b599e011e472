import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { TranscriptSnapshot } from "../state/transcript";
import { ItemRow } from "./ItemRow";

const PAGE = 200;

/**
 * The transcript. Only the last `shown` items are in the DOM (older ones come
 * back with "Show earlier"), each row re-renders only when its item changed,
 * and the view sticks to the bottom while the user is there.
 */
export function TranscriptView({ snap }: { snap: TranscriptSnapshot }) {
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [shown, setShown] = useState(PAGE);
  const items = snap.items;
  const start = Math.max(0, items.length - shown);
  const visible = start > 0 ? items.slice(start) : items;

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    // Content that grows after layout (diagrams, highlighting, lazy sizes)
    // keeps the view pinned to the bottom while the user is there.
    const ro = new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
    if (inner.current) ro.observe(inner.current);
    return () => {
      el.removeEventListener("scroll", onScroll);
      ro.disconnect();
    };
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  });

  const showEarlier = () => {
    const el = scroller.current;
    const before = el ? el.scrollHeight - el.scrollTop : 0;
    setShown((n) => n + PAGE);
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - before;
    });
  };

  return (
    <div class="transcript" ref={scroller} role="log" aria-live="polite" aria-relevant="additions">
      <div class="transcript-inner" ref={inner}>
        {start > 0 && (
          <button type="button" class="btn small ghost show-earlier" onClick={showEarlier}>
            Show earlier ({start} more)
          </button>
        )}
        {items.length === 0 && (
          <p class="muted empty-transcript">Nothing here yet. Write a prompt below to start.</p>
        )}
        {visible.map((it) => (
          <ItemRow key={it.key} item={it} v={it.v} />
        ))}
        {snap.activeRun && (
          <div class="working" role="status">
            <span class="spinner" aria-hidden="true" />
            {snap.pendingApprovals.length > 0
              ? "Waiting for your approval…"
              : snap.pendingPlans.length > 0
                ? "Waiting for your review of the plan…"
                : snap.pendingQuestions.length > 0
                  ? "Waiting for your answer…"
                  : "Working…"}
          </div>
        )}
      </div>
    </div>
  );
}
