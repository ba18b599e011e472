// Rewind (a revert) and redo, as the user goes through them: a dry run says what would change
// (which files changed by hand would be overwritten, and which files changed by hand or by another
// session it leaves as they are), a dialog asks (what goes back can be chosen there: the
// conversation and the files, or only one of them; those files left can be ticked to go back too),
// then the real call, with the ticked ones as `include`. The transcript shows the outcome from the events it
// brings (`session_reverted`, `revert_undone`), never from the answer, so a reload shows the same.
import { ApiError, api, attachmentUrl, errorText } from "../api/client";
import type { ImageInput, ImageRef, RevertResult, RevertScope } from "../api/types";
import { toBase64 } from "../util/images";
import { includedPaths, tick } from "./kept";
import { Observable } from "./observable";
import type { UndoTarget, UserItem } from "./transcript";

export type RevertKind = "revert" | "redo";

export interface RevertFlow {
  /** Each flow its own: an answer for an older one is dropped. */
  id: number;
  session: string;
  kind: RevertKind;
  /** The message reverted to (a revert), null for a redo. */
  target: UndoTarget | null;
  /** What a revert takes back (a redo brings back what its revert took, whatever this says). */
  scope: RevertScope;
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
  // `both` is the server's default: left out, the call is the one `/undo` always made.
  const scope = f.scope === "both" ? {} : { scope: f.scope };
  return api.revert(f.session, { message_id: f.target?.messageId ?? "", ...scope, ...opts });
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
        return "The files cannot be put back to before this message: there is no record of them from before it. Messages to the plan agent, and those sent before undo was turned on, have none. Conversation only still takes the turns back.";
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

/** The dry run of `f` (as it is now); its answer is dropped if the flow or its scope changed meanwhile. */
async function check(f: RevertFlow): Promise<void> {
  const still = () => current(f.id)?.scope === f.scope;
  try {
    const preview = await call(f, { dry_run: true });
    if (still()) update(f.id, { phase: "confirm", preview });
  } catch (e) {
    if (still()) update(f.id, { phase: "failed", error: revertErrorText(e, f.kind) });
  }
}

function begin(session: string, kind: RevertKind, target: UndoTarget | null): void {
  const f: RevertFlow = { id: ++flows, session, kind, target, scope: "both", phase: "checking", preview: null, error: null, ticked: [] };
  revertFlow.set(f);
  void check(f);
}

/**
 * Rewind to before the user message `target` (the conversation and the files, until the dialog's
 * choice says otherwise): first a dry run, then the dialog asks.
 */
export function startRevert(session: string, target: UndoTarget): void {
  begin(session, "revert", target);
}

/** The dialog's choice of what a rewind takes back: the dry run is read again for it. */
export function chooseScope(scope: RevertScope): void {
  const f = revertFlow.get();
  if (!f || f.kind !== "revert" || f.scope === scope || f.phase === "applying") return;
  const next: RevertFlow = { ...f, scope, phase: "checking", preview: null, error: null, ticked: [] };
  revertFlow.set(next);
  void check(next);
}

/** Undo the session's latest revert: the same dry run and question. */
export function startRedo(session: string): void {
  begin(session, "redo", null);
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

// Regenerate: the last finished answer taken back and asked for again. The conversation (only:
// every file stays as it is) is rewound to before the prompt that answer followed, and the same
// prompt, with its images, is sent again; the old answer stays in the transcript, dimmed, and the
// new one streams after it.

/** An image the prompt carried, read back as the API takes it. */
async function imageInput(img: ImageRef): Promise<ImageInput> {
  const r = await fetch(attachmentUrl(img.id), { credentials: "same-origin" });
  if (!r.ok) throw new Error(`An image of the message could not be read again (HTTP ${r.status}).`);
  const data = toBase64(new Uint8Array(await r.arrayBuffer()));
  return { media_type: img.media_type, data, ...(img.name ? { name: img.name } : {}) };
}

/**
 * Rewind the conversation to before `prompt` and send it again. Its images are read first, so a
 * failure there changes nothing; a send refused after the rewind leaves it rewound (the note's
 * Redo brings the answer back).
 */
export async function regenerate(session: string, prompt: UserItem): Promise<void> {
  const images = await Promise.all(prompt.images.map(imageInput));
  await api.revert(session, { message_id: prompt.messageId, scope: "conversation" });
  await api.sendMessage(session, prompt.text, images);
}
