// The live transcript of one session: what the views subscribe to. Frames are queued as they
// arrive and applied by the reducer (reduce.ts) once per animation frame, then announced once.
// This store owns the reducer's state, the events held (what a rebuild replays) and where the
// pages read so far stand; reading those pages over REST is the pager's (pager.ts).
//
// A session is read from its end: the newest page first, then older pages as the user scrolls
// up. The events held always run without a hole from `firstSeq` to `lastSeq`; an older page
// rebuilds the whole transcript from the events held, so what straddles the boundary comes out
// as if read in one go.
import type { EventFrame, EventPage, KnownEvent, ReviewComment, Session, Task } from "../api/types";
import { frameScheduler, inAnimationFrame } from "./frame";
import type { TranscriptSnapshot } from "./items";
import { emptyState, mergeComments, mergeTasks, rebuild, setComment, reduceBatch, takeChanges, updateTask, type TranscriptState } from "./reduce";

export type * from "./items";
export { LIVE_TASK, SUBAGENT_TOOLS } from "./reduce";

/**
 * Live text (the server sends deltas about every 50 ms, a running command's output about every
 * 100 ms) shows at most every 150 ms: each update parses the reply's last blocks, lays them out
 * and paints them, several ms on a slow machine, and six or seven updates a second still read as
 * text being typed (a few words each at a model's pace). An update also waits at least UPDATE_COST_FACTOR times what the last one cost
 * the main thread (more as the reply grows, more on a slow or busy device): the updates keep to
 * about 1/30 of the page's time. Any other event is shown on the next frame, with the text that
 * came before it.
 */
export const DELTA_EVERY_MS = 150;
const DELTA_EVERY_MAX_MS = 500;
const UPDATE_COST_FACTOR = 30;
const isDelta = (e: EventFrame) => e.type === "message_delta" || e.type === "reasoning_delta" || e.type === "tool_output" || e.type === "task_output";

/** A user message `/undo` reverts to. */
export interface UndoTarget {
  messageId: string;
  text: string;
}

export class Transcript {
  version = 0;
  /** The newest page has been applied. */
  loaded = false;
  loadError: string | null = null;
  /** Older events exist than those held; `olderCursor` is the `before` that reads them. */
  hasOlder = false;
  olderCursor = 0;
  loadingOlder = false;
  olderError: string | null = null;
  private s: TranscriptState;
  /** Every event applied, in seq order: what a rebuild replays. */
  private held: EventFrame[] = [];
  private queue: EventFrame[] = [];
  /** Items were added or changed since the last announcement: the list needs a new identity. */
  private itemsChanged = false;
  private listeners = new Set<() => void>();
  private snap: TranscriptSnapshot | null = null;
  private readonly schedule = frameScheduler(() => this.flush());
  /** When queued events were last applied, and the timer that applies text deltas held back since. */
  private shownAt = 0;
  private deltaTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly itemWatchers = new Map<string, Set<() => void>>();
  private readonly watchItem = (key: string, fn: () => void): (() => void) => {
    let set = this.itemWatchers.get(key);
    if (!set) this.itemWatchers.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.itemWatchers.get(key) === set) this.itemWatchers.delete(key);
    };
  };
  /** What applying events and showing them costs, in ms (a moving average over the updates). */
  private updateCost = 0;
  /** Called for events that need the user's attention, once each, when they arrive live. */
  onAttention: ((ev: KnownEvent) => void) | null = null;
  /** Called when a seq gap is seen (the caller refetches from lastSeq). */
  onGap: ((after: number) => void) | null = null;

  constructor(readonly sessionId: string) {
    this.s = emptyState(sessionId);
  }

  /** The seq of the newest event held (0: none yet). */
  get lastSeq(): number {
    return this.s.lastSeq;
  }

  /** The seq of the oldest event held (0: none yet). */
  get firstSeq(): number {
    return this.s.firstSeq;
  }

  get session(): Session | null {
    return this.s.session;
  }

  /** The key of the item showing the event `seq` (or the nearest item before it), if held. */
  itemKeyAt(seq: number): string | null {
    const key = this.s.seqKeys.get(seq);
    if (key) return key;
    const items = this.s.items;
    for (let i = items.length - 1; i >= 0; i--) if (items[i].seq <= seq) return items[i].key;
    return null;
  }

  /** The latest prompt typed to the build agent and not taken back: what `/undo` reverts to. */
  undoTarget(): UndoTarget | null {
    const items = this.s.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === "user" && it.internal === null && !it.takenBack && it.agent !== "plan") {
        return { messageId: it.messageId, text: it.text };
      }
    }
    return null;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /** Queue events; they are applied on the next frame. */
  push(events: readonly EventFrame[]): void {
    for (const e of events) this.queue.push(e);
    const every = Math.min(DELTA_EVERY_MAX_MS, Math.max(DELTA_EVERY_MS, UPDATE_COST_FACTOR * this.updateCost));
    const wait = every - (performance.now() - this.shownAt);
    if (wait > 0 && this.queue.every(isDelta)) {
      this.deltaTimer ??= setTimeout(() => {
        this.deltaTimer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    this.schedule();
  }

  hasQueued(): boolean {
    return this.queue.length > 0;
  }

  /** Apply queued events even across a seq hole (after a refetch could not fill it). */
  acceptGap(): void {
    this.apply(true);
  }

  /** The newest page of the session (read with `before`): applied at once. */
  loadNewest(page: EventPage): void {
    this.loaded = true;
    this.loadError = null;
    this.hasOlder = page.has_more;
    this.olderCursor = page.next_cursor;
    this.push(page.data);
    this.flush();
    this.announce();
  }

  loadFailed(message: string): void {
    this.loadError = message;
    this.announce();
  }

  /** Can a page of older events be asked for now? Marks it on its way when so. */
  beginOlder(): boolean {
    if (!this.loaded || !this.hasOlder || this.loadingOlder) return false;
    this.loadingOlder = true;
    this.olderError = null;
    this.announce();
    return true;
  }

  olderFailed(message: string): void {
    this.loadingOlder = false;
    this.olderError = message;
    this.announce();
  }

  /** A page of older events (read with `before` = `olderCursor`): the transcript is built again. */
  prepend(page: EventPage): void {
    this.flush();
    this.loadingOlder = false;
    this.olderError = null;
    this.hasOlder = page.has_more;
    this.olderCursor = Math.min(this.olderCursor, page.next_cursor);
    const bound = this.firstSeq > 0 ? this.firstSeq : this.lastSeq + 1;
    const older: EventFrame[] = [];
    let prev = -1;
    for (const ev of [...page.data].sort((x, y) => x.seq - y.seq)) {
      if (ev.seq >= bound || ev.seq === prev) continue;
      older.push(ev);
      prev = ev.seq;
    }
    if (older.length > 0) {
      this.held = older.concat(this.held);
      this.s = rebuild(this.s, this.held);
      this.itemsChanged = false;
    }
    this.announce();
  }

  /** Apply queued events now. */
  flush(): void {
    this.apply(false);
  }

  private apply(acceptGap: boolean): void {
    clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    if (this.queue.length === 0) return;
    this.shownAt = performance.now();
    const { state, applied, later, gap } = reduceBatch(this.s, this.queue, acceptGap);
    this.s = state;
    // After a hole: kept for after the refetch.
    this.queue = later;
    for (const ev of applied) this.held.push(ev);
    const { touched, added, itemsChanged, attention } = takeChanges(state);
    this.itemsChanged ||= itemsChanged;
    for (const ev of attention) this.onAttention?.(ev);
    if (gap && this.onGap) this.onGap(this.lastSeq);
    if (applied.length === 0) return;
    const onlyText = applied.every(isDelta);
    // Text added to replies or commands' output already shown, and nothing else: their rows
    // redraw alone, without a new snapshot for the whole view (its header, composer and list) to
    // render again.
    // (A task's output touches no item: the tasks panel reads it from a new snapshot.)
    if (onlyText && !added && touched.length > 0 && touched.every((it) => (it.kind === "assistant" || it.kind === "tool") && this.itemWatchers.has(it.key))) {
      for (const it of new Set(touched)) this.itemWatchers.get(it.key)?.forEach((fn) => fn());
    } else {
      this.announce();
    }
    if (onlyText) this.measureUpdate();
  }

  /**
   * What showing text deltas costs. In an animation frame, the render of what was just applied,
   * its layout and its paint end the frame's task: a task queued now starts when they are done.
   */
  private measureUpdate(): void {
    if (!inAnimationFrame()) return;
    const t0 = this.shownAt;
    setTimeout(() => {
      const c = performance.now() - t0;
      this.updateCost = this.updateCost === 0 ? c : 0.7 * this.updateCost + 0.3 * c;
    });
  }

  snapshot(): TranscriptSnapshot {
    if (this.snap) return this.snap;
    const s = this.s;
    this.snap = {
      version: this.version,
      watchItem: this.watchItem,
      lastSeq: s.lastSeq,
      items: s.items,
      activeRun: s.activeRunId ? (s.runs.get(s.activeRunId) ?? null) : null,
      pendingApprovals: [...s.approvals.values()].filter((a) => a.decision === null && !a.expired),
      pendingQuestions: [...s.questions.values()].filter((q) => q.answers === null && !q.expired),
      pendingPlans: [...s.plans.values()].filter((p) => p.decision === null && !p.expired),
      plans: [...s.plans.values()],
      tasks: [...s.tasks.values()].sort((x, y) => y.created_at - x.created_at || (x.id < y.id ? 1 : -1)),
      taskOutput: s.taskOutput,
      session: s.session,
      runMarks: s.runMarks,
      usageMarks: s.usageMarks,
      childPrompts: s.childPrompts,
      childMarks: s.childMarks,
      subagentMarks: s.subagentMarks,
      context: s.context,
      goal: s.goal,
      comments: s.comments,
      reviewMarks: s.reviewMarks,
      loaded: this.loaded,
      loadError: this.loadError,
      hasOlder: this.hasOlder,
      loadingOlder: this.loadingOlder,
      olderError: this.olderError,
    };
    return this.snap;
  }

  /** Tasks from the REST list: added when the event stream has not described them yet. */
  mergeTasks(list: readonly Task[]): void {
    if (mergeTasks(this.s, list)) this.announce();
  }

  /** The session's comments from the REST list (the events keep them current afterwards). */
  mergeComments(list: readonly ReviewComment[]): void {
    if (mergeComments(this.s, list)) this.commentsChanged();
  }

  /** A comment as the server answered a change to it (`deleted`: it is gone), before its event. */
  putComment(c: ReviewComment, deleted = false): void {
    if (setComment(this.s, c, deleted)) this.commentsChanged();
  }

  private commentsChanged(): void {
    this.itemsChanged ||= takeChanges(this.s).itemsChanged;
    this.announce();
  }

  /** A task state read from the REST API (e.g. the answer to stop). */
  updateTask(t: Task): void {
    if (updateTask(this.s, t)) this.announce();
  }

  private announce(): void {
    // Items are compared by identity in lists; a new array makes the list re-render.
    if (this.itemsChanged) {
      this.s.items = this.s.items.slice();
      this.itemsChanged = false;
    }
    this.version++;
    this.snap = null;
    this.listeners.forEach((fn) => fn());
  }
}
