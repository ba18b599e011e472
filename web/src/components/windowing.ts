// Windowing for the transcript: which items are in the DOM (those near the viewport, plus the one
// holding focus), how tall the others are taken to be (their measured height, or the mean of
// those measured), and where the view stays when rows change: at the bottom while the user is
// there, else on the row at the top of the viewport (the anchor), wherever rows above it come,
// go or change size. The browser's own scroll anchoring is off (`overflow-anchor: none`): the
// spacers that stand in for rows out of view would confuse it.
import type { Item } from "../state/transcript";

/** Pixels rendered above and below the viewport. */
export const OVERSCAN = 1000;
/** ...until the view is first painted: the first screen shows sooner with fewer rows to lay out. */
const FIRST_OVERSCAN = 100;
/** Closer than this to the bottom (px), the view follows new content. */
const BOTTOM_SLACK = 80;
/** The height taken for a row before any row is measured (px). */
const FIRST_GUESS = 64;

/**
 * The scroller lays its content out from the bottom (`flex-direction: column-reverse`): its
 * scrollTop is 0 at the bottom and negative above it, so a view at the bottom stays there as
 * content grows, with no scroll of its own. How far the view's top is below the content's top:
 */
export function scrolledFromTop(el: HTMLElement): number {
  return el.scrollHeight - el.clientHeight + el.scrollTop;
}

/** How far the view's bottom is above the content's bottom. */
function scrolledFromBottom(el: HTMLElement): number {
  return -el.scrollTop;
}

export interface Anchor {
  key: string;
  /** The row's top, in px below the viewport's top. */
  offset: number;
}

export interface Range {
  /** Items [start, end) are in the DOM. */
  start: number;
  end: number;
  /** An item outside [start, end) kept in the DOM because it holds focus, or -1. */
  focus: number;
}

/** The smallest i with tops[i] > x (tops.length when none). */
function firstAbove(tops: Float64Array, x: number): number {
  let lo = 0;
  let hi = tops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class Windowing {
  private readonly heights = new Map<string, number>();
  private measuredSum = 0;
  private measured = 0;
  private heightsVersion = 0;
  /** The row elements in the DOM, by item key (read from the DOM by `sync`). */
  rows = new Map<string, HTMLElement>();
  atBottom = true;
  /** Pixels rendered beyond the viewport now (FIRST_OVERSCAN until `painted`). */
  overscan = FIRST_OVERSCAN;
  anchor: Anchor | null = null;
  focusKey: string | null = null;
  /** An item brought into view on request: focus its first control once it is in the DOM. */
  focusAfter: string | null = null;
  scroller: HTMLElement | null = null;
  private vh = 0;
  /** The range last rendered. */
  rendered: Range = { start: 0, end: 0, focus: -1 };
  /** Called (from a ResizeObserver) when a row or the viewport changed size. */
  onResize: (() => void) | null = null;
  private items: Item[] = [];
  private tops = new Float64Array(1);
  private topsFor: Item[] | null = null;
  private topsVersion = -1;
  private index: Map<string, number> | null = null;
  private readonly observer =
    typeof ResizeObserver === "undefined"
      ? null
      : new ResizeObserver((entries) => {
          for (const e of entries) {
            if (e.target === this.scroller) this.vh = this.scroller.clientHeight;
            const key = (e.target as HTMLElement).dataset.key;
            if (key !== undefined && this.rows.get(key) === e.target) this.setHeight(key, e.borderBoxSize?.[0]?.blockSize ?? (e.target as HTMLElement).offsetHeight);
          }
          this.onResize?.();
        });

  /** The viewport's height (px): the scroller's, or the window's before it is laid out. */
  viewport(): number {
    return this.vh || window.innerHeight;
  }

  attach(scroller: HTMLElement): void {
    this.scroller = scroller;
    this.vh = scroller.clientHeight;
    this.observer?.observe(scroller);
    // Whatever changes the content's height resizes this: also a row that redraws alone (a reply
    // streaming in), which the view's own render does not see.
    const inner = scroller.querySelector(":scope > .transcript-inner");
    if (inner) this.observer?.observe(inner);
  }

  detach(): void {
    this.observer?.disconnect();
    this.scroller = null;
  }

  /** After a render: note the rows now in the DOM, and watch their size. */
  sync(): void {
    const el = this.scroller;
    if (!el) return;
    const next = new Map<string, HTMLElement>();
    for (const row of el.querySelectorAll<HTMLElement>(":scope > .transcript-inner > .t-row")) {
      const key = row.dataset.key;
      if (key === undefined) continue;
      next.set(key, row);
      if (this.rows.get(key) !== row) this.observer?.observe(row);
    }
    for (const [key, row] of this.rows) if (next.get(key) !== row) this.observer?.unobserve(row);
    this.rows = next;
  }

  private setHeight(key: string, h: number): boolean {
    const old = this.heights.get(key);
    if (old === h) return false;
    if (old === undefined) {
      this.measured++;
      this.measuredSum += h;
    } else {
      this.measuredSum += h - old;
    }
    this.heights.set(key, h);
    this.heightsVersion++;
    return true;
  }

  /** Measure the rows in the DOM not measured yet (before the first paint). */
  measureNew(): void {
    for (const [key, el] of this.rows) {
      if (!this.heights.has(key)) this.setHeight(key, el.getBoundingClientRect().height);
    }
  }

  private estimate(): number {
    return this.measured > 0 ? this.measuredSum / this.measured : FIRST_GUESS;
  }

  /** The top of each item (and the total height at the end), measured or estimated. */
  private layout(items: Item[]): Float64Array {
    if (items === this.topsFor && this.topsVersion === this.heightsVersion) return this.tops;
    if (items !== this.items) {
      this.items = items;
      this.index = null;
    }
    const est = this.estimate();
    const n = items.length;
    const tops = this.tops.length === n + 1 ? this.tops : new Float64Array(n + 1);
    for (let i = 0; i < n; i++) tops[i + 1] = tops[i] + (this.heights.get(items[i].key) ?? est);
    this.tops = tops;
    this.topsFor = items;
    this.topsVersion = this.heightsVersion;
    return tops;
  }

  private indexOf(key: string, hint: number): number {
    const items = this.items;
    if (hint >= 0 && hint < items.length && items[hint].key === key) return hint;
    if (!this.index) this.index = new Map(items.map((it, i) => [it.key, i]));
    return this.index.get(key) ?? -1;
  }

  /** Which items to render for a viewport `vh` px tall, and the spacers' heights. */
  compute(items: Item[], vh: number): Range & { tops: Float64Array } {
    const tops = this.layout(items);
    const n = items.length;
    const total = tops[n];
    let viewTop: number;
    const ai = !this.atBottom && this.anchor ? this.indexOf(this.anchor.key, this.rendered.start) : -1;
    if (this.atBottom) viewTop = total - vh;
    else if (ai >= 0 && this.anchor) viewTop = tops[ai] - this.anchor.offset;
    else viewTop = this.scroller ? scrolledFromTop(this.scroller) : 0;
    const start = Math.min(n, Math.max(0, firstAbove(tops, viewTop - this.overscan) - 1));
    const end = Math.max(start, Math.min(n, firstAbove(tops, viewTop + vh + this.overscan - 0.5)));
    let focus = this.focusKey ? this.indexOf(this.focusKey, -1) : -1;
    if (focus >= start && focus < end) focus = -1;
    return { start, end, focus, tops };
  }

  /** The view has been painted: render the full overscan from now on. True if that changed anything. */
  painted(): boolean {
    if (this.overscan === OVERSCAN) return false;
    this.overscan = OVERSCAN;
    return this.stale();
  }

  /** Would the items rendered differ now (heights or scroll position changed)? */
  stale(): boolean {
    if (!this.scroller) return false;
    const r = this.compute(this.items, this.viewport());
    const c = this.rendered;
    return r.start !== c.start || r.end !== c.end || r.focus !== c.focus;
  }

  /** Keep the view where it was: at the bottom, or with the anchor row where it was. */
  settle(): void {
    const el = this.scroller;
    if (!el) return;
    if (this.atBottom) {
      if (scrolledFromBottom(el) > 1) el.scrollTop = 0;
      return;
    }
    const a = this.anchor;
    const row = a ? this.rows.get(a.key) : undefined;
    if (a && row) {
      const d = row.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset;
      if (Math.abs(d) >= 1) el.scrollTop += d;
    }
    // The row now at the top (rows may have come into view since): the anchor for what follows.
    this.capture(el);
  }

  /** After a scroll: is the view at the bottom, and which row is at its top? */
  scrolled(): void {
    const el = this.scroller;
    if (!el) return;
    this.atBottom = scrolledFromBottom(el) < BOTTOM_SLACK;
    // At the bottom the view follows the end and no anchor is read; one is taken when the view
    // leaves the bottom.
    if (!this.atBottom) this.capture(el);
  }

  private capture(el: HTMLElement): void {
    const top = el.getBoundingClientRect().top;
    let best: Anchor | null = null;
    for (const [key, row] of this.rows) {
      const r = row.getBoundingClientRect();
      if (r.height > 0 && r.bottom > top && (!best || r.top - top < best.offset)) best = { key, offset: r.top - top };
    }
    this.anchor = best;
  }
}
