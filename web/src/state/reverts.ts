// Which turns of a transcript are taken back, read from its events alone (so a reload shows the
// same): each `session_reverted` lists the runs it hid from the model (none for a rewind of the
// files only); `revert_undone` ends one, and the runs of every revert still in force stay hidden.
// A revert can be redone while it is the newest in force and no run has started since.
import type { EventOf } from "../api/types";
import type { Item, RevertItem } from "./items";

/** The note a `session_reverted` leaves; `prompt` is the text of the message reverted to. */
export function revertItem(ev: EventOf<"session_reverted">, prompt: string, sessionId: string): RevertItem {
  return {
    kind: "revert",
    key: `rv:${ev.revert_id}`,
    seq: ev.seq,
    run: ev.run ?? null,
    v: 0,
    revertId: ev.revert_id,
    messageId: ev.message_id,
    prompt,
    files: ev.files,
    runs: ev.runs,
    sessionId,
    undone: false,
    redoFiles: [],
    redoable: false,
  };
}

export class RevertBook {
  /** Every revert seen, oldest first. */
  private readonly list: RevertItem[] = [];
  private hidden = new Set<string>();
  /** The seq of the latest `run_started` (0: none held). */
  private lastRunSeq = 0;

  constructor(
    private readonly itemsOf: (run: string) => Item[],
    private readonly touch: (item: Item) => void,
  ) {}

  /** A `session_reverted`, as its note item. */
  reverted(item: RevertItem): void {
    this.list.push(item);
    this.refresh();
  }

  /** A `revert_undone`: the revert's files and turns are back. */
  undone(revertId: string, files: RevertItem["redoFiles"]): void {
    const r = this.list.find((x) => x.revertId === revertId);
    if (!r || r.undone) return;
    r.undone = true;
    r.redoFiles = files;
    this.touch(r);
    this.refresh();
  }

  /** A run started at `seq`: no revert before it can be redone any more. */
  runStarted(seq: number): void {
    this.lastRunSeq = Math.max(this.lastRunSeq, seq);
    this.refresh();
  }

  isHidden(run: string | null): boolean {
    return run !== null && this.hidden.has(run);
  }

  /** The newest revert in force (null: none). */
  private newest(): RevertItem | null {
    for (let i = this.list.length - 1; i >= 0; i--) if (!this.list[i].undone) return this.list[i];
    return null;
  }

  private refresh(): void {
    const newest = this.newest();
    for (const r of this.list) {
      const redoable = r === newest && r.seq > this.lastRunSeq;
      if (r.redoable !== redoable) {
        r.redoable = redoable;
        this.touch(r);
      }
    }
    const next = new Set(this.list.filter((r) => !r.undone).flatMap((r) => r.runs));
    for (const run of this.hidden) if (!next.has(run)) this.mark(run, false);
    for (const run of next) if (!this.hidden.has(run)) this.mark(run, true);
    this.hidden = next;
  }

  /** Mark (or unmark) the items of a run; the label goes on the prompt, else the first shown item. */
  private mark(run: string, hidden: boolean): void {
    const items = this.itemsOf(run);
    const lead =
      items.find((it) => it.kind === "user" && it.internal !== "wakeup") ??
      items.find((it) => it.kind !== "run_start" && it.kind !== "run_end" && it.kind !== "user") ??
      items[0];
    for (const it of items) {
      const want = hidden ? (it === lead ? "lead" : "rest") : undefined;
      if (it.takenBack !== want) {
        it.takenBack = want;
        this.touch(it);
      }
    }
  }
}
