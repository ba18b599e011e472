// Revert and redo, as the user goes through them: a dry run says what would change (which files
// changed by hand would be overwritten, and which files changed by hand or by another session it
// leaves as they are), a dialog asks (those left can be ticked to go back too), then the real
// call, with the ticked ones as `include`. The transcript shows the outcome from the events it
// brings (`session_reverted`, `revert_undone`), never from the answer, so a reload shows the same.
import { ApiError, api, errorText } from "../api/client";
import type { RevertResult } from "../api/types";
import { includedPaths, tick } from "./kept";
import { Observable } from "./observable";
import type { UndoTarget } from "./transcript";

export type RevertKind = "revert" | "redo";

export interface RevertFlow {
  /** Each flow its own: an answer for an older one is dropped. */
  id: number;
  session: string;
  kind: RevertKind;
  /** The message reverted to (a revert), null for a redo. */
  target: UndoTarget | null;
  /** `checking`: the dry run is on its way; `failed`: it failed (`error` says why). */
  phase: "checking" | "confirm" | "applying" | "failed";
  preview: RevertResult | null;
  error: string | null;
  /** The paths of `preview.kept` the user ticked, to be put back too (`include`). */
  ticked: string[];
}

/** The revert or redo being asked about (null: none). */
export const revertFlow = new Observable<RevertFlow | null>(null);
let flows = 0;

function current(id: number): RevertFlow | null {
  const f = revertFlow.get();
  return f && f.id === id ? f : null;
}

function update(id: number, change: Partial<RevertFlow>): void {
  const f = current(id);
  if (f) revertFlow.set({ ...f, ...change });
}

function call(f: RevertFlow, opts: { dry_run?: boolean; force?: boolean; include?: string[] }): Promise<RevertResult> {
  if (f.kind === "redo") return api.redo(f.session, opts);
  return api.revert(f.session, { message_id: f.target?.messageId ?? "", ...opts });
}

/** The server refused because files changed by hand would be overwritten. */
function handEditConflict(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409 && e.code === "hand_edits";
}

/** Why a revert or redo cannot be done, in plain words. */
export function revertErrorText(e: unknown, kind: RevertKind): string {
  if (!(e instanceof ApiError)) return errorText(e);
  const m = e.message;
  const verb = kind === "revert" ? "revert" : "redo";
  if (e.status === 409) {
    // The server's codes for each reason (the message is for people reading the API).
    switch (e.code) {
      case "session_busy":
        return `The agent is still working. Try to ${verb} again once the run has ended, or cancel the run first.`;
      case "no_snapshot":
        return "This message cannot be reverted: there is no record of the files from before it. Messages to the plan agent, and those sent before undo was turned on, have none.";
      case "hand_edits":
        return "Files were changed by hand since the check. Look at the list again before you go on.";
      case "nothing_to_redo":
        return "There is nothing to redo.";
      case "conversation_went_on":
        return "The conversation went on after the revert, so it can no longer be redone.";
      case "snapshots_unavailable":
        return `The workspace's snapshots could not be read, so nothing was changed. (${m})`;
    }
  }
  if (e.status === 404) return kind === "revert" ? "That message is no longer in this session." : "This session no longer exists.";
  return errorText(e);
}

async function begin(session: string, kind: RevertKind, target: UndoTarget | null): Promise<void> {
  const f: RevertFlow = { id: ++flows, session, kind, target, phase: "checking", preview: null, error: null, ticked: [] };
  revertFlow.set(f);
  try {
    const preview = await call(f, { dry_run: true });
    update(f.id, { phase: "confirm", preview });
  } catch (e) {
    update(f.id, { phase: "failed", error: revertErrorText(e, kind) });
  }
}

/** Revert to before the user message `target`: first a dry run, then the dialog asks. */
export function startRevert(session: string, target: UndoTarget): void {
  void begin(session, "revert", target);
}

/** Undo the session's latest revert: the same dry run and question. */
export function startRedo(session: string): void {
  void begin(session, "redo", null);
}

export function closeRevert(): void {
  revertFlow.set(null);
}

/** Tick (or untick) a file the revert or redo would leave as it is, to put it back too. */
export function tickKept(path: string, on: boolean): void {
  const f = revertFlow.get();
  if (f?.phase === "confirm") update(f.id, { ticked: tick(f.ticked, path, on) });
}

/**
 * The user confirmed: do it, over the hand edits the dialog showed (`force`), with the files left
 * apart that the user ticked (`include`; sent only when some are). Hand edits made since the check
 * are not overwritten unseen: the dry run is read again (without `include`, so every file left
 * apart is listed again) and shown, the ticks kept on the files it still lists.
 */
export async function confirmRevert(): Promise<void> {
  const f = revertFlow.get();
  if (!f || f.phase !== "confirm" || !f.preview) return;
  update(f.id, { phase: "applying", error: null });
  const include = includedPaths(f.preview.kept, f.ticked);
  try {
    await call(f, { force: f.preview.hand_edited.length > 0, ...(include.length > 0 ? { include } : {}) });
    if (current(f.id)) closeRevert();
  } catch (e) {
    if (!current(f.id)) return;
    let preview = f.preview;
    if (handEditConflict(e)) preview = await call(f, { dry_run: true }).catch(() => preview);
    update(f.id, { phase: "confirm", preview, error: revertErrorText(e, f.kind), ticked: includedPaths(preview.kept, f.ticked) });
  }
}
