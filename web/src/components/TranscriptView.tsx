import type { ComponentChild } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { revealRequest } from "../state/reveal";
import type { TranscriptSnapshot } from "../state/transcript";
import { EmptyTranscript } from "./EmptyTranscript";
import { TranscriptRow } from "./TranscriptRow";
import { scrolledFromTop, Windowing } from "./windowing";

/** Closer than this to the top (px), the page of events before the oldest held is read. */
const NEAR_TOP = 800;
/** How long a row brought into view with `flash` stays highlighted (ms). */
const FLASH_MS = 2500;

function Spacer({ height }: { height: number }) {
  return <div class="t-spacer" aria-hidden="true" style={{ height: `${height}px` }} />;
}

/**
 * The transcript, windowed: only the items near the viewport are in the DOM (spacers of their
 * measured or estimated height stand in for the others), each row re-renders only when its item
 * changed, the view follows the bottom while the user is there and otherwise keeps the row at
 * its top in place. Scrolling near the top asks for the page of events before (`onNeedOlder`).
 */
export function TranscriptView({ snap, onNeedOlder }: { snap: TranscriptSnapshot; onNeedOlder: () => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [w] = useState(() => new Windowing());
  const [, setTick] = useState(0);
  // Rows that scroll into the DOM are not news: the log is live only while following the bottom.
  const [following, setFollowing] = useState(true);
  const latest = useRef({ snap, onNeedOlder });
  latest.current = { snap, onNeedOlder };
  // Renders again before paint in a row (measuring moved the window), and the next frame's check.
  const burst = useRef(0);
  /** The row to highlight once it is in the DOM. */
  const flashKey = useRef<string | null>(null);
  /** The row a search hit opened: marked until the user moves on (a click or a key anywhere). */
  const [marked, setMarked] = useState<string | null>(null);
  const raf = useRef(0);
  /** The frame that paints the first rows: the rows beyond the first screen come after it. */
  const firstPaint = useRef(0);
  // Called after a resize or scroll, when layout is clean: only a window that would change costs a frame.
  const refreshLater = () => {
    if (raf.current || !w.stale()) return;
    raf.current = requestAnimationFrame(() => {
      raf.current = 0;
      if (w.stale()) setTick((n) => n + 1);
    });
  };

  const items = snap.items;
  const { start, end, focus, tops } = w.compute(items, w.viewport());
  w.rendered = { start, end, focus };

  // Near the top with older events to read: read them (a short transcript reads until it fills).
  const maybeOlder = () => {
    const el = scroller.current;
    const s = latest.current.snap;
    if (el && s.loaded && s.hasOlder && !s.loadingOlder && !s.olderError && scrolledFromTop(el) < NEAR_TOP) {
      latest.current.onNeedOlder();
    }
  };

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    w.attach(el);
    // Rows rendered from a ResizeObserver callback would be observed in the same loop: a frame later.
    w.onResize = () => {
      w.settle();
      refreshLater();
    };
    const onScroll = () => {
      w.scrolled();
      setFollowing(w.atBottom);
      refreshLater();
      maybeOlder();
    };
    const onFocusIn = (e: FocusEvent) => {
      const row = e.target instanceof Element ? e.target.closest<HTMLElement>(".t-row") : null;
      w.focusKey = row?.dataset.key ?? null;
    };
    const onFocusOut = (e: FocusEvent) => {
      if (!(e.relatedTarget instanceof Node && el.contains(e.relatedTarget))) w.focusKey = null;
    };
    const offReveal = revealRequest.subscribe((req) => {
      if (!req || !latest.current.snap.items.some((i) => i.key === req.key)) return;
      w.atBottom = false;
      setFollowing(false);
      w.anchor = { key: req.key, offset: Math.round(el.clientHeight / 4) };
      w.focusAfter = req.key;
      flashKey.current = req.flash ? req.key : null;
      setMarked(req.flash ? req.key : null);
      setTick((n) => n + 1);
    });
    el.addEventListener("scroll", onScroll, { passive: true });
    el.addEventListener("focusin", onFocusIn);
    el.addEventListener("focusout", onFocusOut);
    return () => {
      el.removeEventListener("scroll", onScroll);
      el.removeEventListener("focusin", onFocusIn);
      el.removeEventListener("focusout", onFocusOut);
      offReveal();
      cancelAnimationFrame(raf.current);
      cancelAnimationFrame(firstPaint.current);
      w.onResize = null;
      w.detach();
    };
  }, []);

  // After every render, before paint: measure the new rows, keep the view in place, and render
  // again at once when the measured heights move the window.
  useLayoutEffect(() => {
    w.sync();
    w.measureNew();
    w.settle();
    const revealed = w.focusAfter ? w.rows.get(w.focusAfter) : undefined;
    if (revealed) {
      if (flashKey.current === w.focusAfter) {
        // Marked on the element itself: the row's own render never sets `data-flash`.
        revealed.dataset.flash = "";
        setTimeout(() => delete revealed.dataset.flash, FLASH_MS);
        flashKey.current = null;
      }
      w.focusAfter = null;
      revealed.querySelector<HTMLElement>("button, textarea, input")?.focus({ preventScroll: true });
    }
    if (w.rows.size > 0 && !firstPaint.current) {
      firstPaint.current = requestAnimationFrame(() =>
        setTimeout(() => {
          if (w.painted()) setTick((n) => n + 1);
        }),
      );
    }
    if (w.stale()) {
      // Measured rows settle the window within a few passes; never loop without a frame between.
      if (burst.current++ === 0) requestAnimationFrame(() => (burst.current = 0));
      if (burst.current <= 8) setTick((n) => n + 1);
      else refreshLater();
    }
    maybeOlder();
  });

  // Marked from the render after the jump: the key or click that opened the hit came before.
  useEffect(() => {
    if (!marked) return;
    const clear = () => setMarked(null);
    document.addEventListener("pointerdown", clear, true);
    document.addEventListener("keydown", clear, true);
    return () => {
      document.removeEventListener("pointerdown", clear, true);
      document.removeEventListener("keydown", clear, true);
    };
  }, [marked]);

  const n = items.length;
  const children: ComponentChild[] = [];
  const segments: [number, number][] = [[start, end]];
  if (focus >= 0) segments.splice(focus < start ? 0 : 1, 0, [focus, focus + 1]);
  let pos = 0;
  for (const [a, b] of segments) {
    if (tops[a] - tops[pos] > 0) children.push(<Spacer key={`sp${pos}`} height={tops[a] - tops[pos]} />);
    for (let i = a; i < b; i++) {
      const it = items[i];
      children.push(<TranscriptRow key={it.key} item={it} v={it.v} watch={snap.watchItem} marked={it.key === marked} />);
    }
    pos = b;
  }
  if (tops[n] - tops[pos] > 0) children.push(<Spacer key="sp-end" height={tops[n] - tops[pos]} />);

  return (
    <div
      class="transcript"
      ref={scroller}
      role="log"
      aria-live={following ? "polite" : "off"}
      aria-relevant="additions"
      aria-busy={snap.loadingOlder || undefined}
    >
      <div class="transcript-inner">
        {snap.hasOlder && (
          <div class="t-older muted small">
            {snap.olderError ? (
              <>
                <span>Earlier messages could not be loaded: {snap.olderError}</span>{" "}
                <button type="button" class="btn small ghost" onClick={() => latest.current.onNeedOlder()}>
                  Try again
                </button>
              </>
            ) : (
              "Loading earlier messages…"
            )}
          </div>
        )}
        {!snap.loaded && snap.loadError && (
          <p class="muted empty-transcript">Messages could not be loaded: {snap.loadError} Trying again…</p>
        )}
        {snap.loaded && n === 0 && !snap.hasOlder && <EmptyTranscript />}
        {children}
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
