import { useEffect, useRef } from "preact/hooks";
import type { RevertFile } from "../api/types";
import { useObservable } from "../state/observable";
import { closeRevert, confirmRevert, type RevertFlow, revertFlow } from "../state/revert";
import { FormError } from "./FormError";
import { RevertKept } from "./RevertKept";
import { quoted } from "./RevertNote";
import "../undo.css";

/** The revert or redo of this session being asked about, if any. */
export function RevertDialog({ sessionId }: { sessionId: string }) {
  const flow = useObservable(revertFlow);
  // Leaving the session drops its question: it is not asked again on coming back.
  useEffect(
    () => () => {
      if (revertFlow.get()?.session === sessionId) closeRevert();
    },
    [sessionId],
  );
  if (!flow || flow.session !== sessionId) return null;
  return <Ask key={flow.id} flow={flow} />;
}

function FileList({ files }: { files: RevertFile[] }) {
  return (
    <ul class="revert-files">
      {files.map((f) => (
        <li key={f.path} data-action={f.action}>
          <code>{f.path}</code>{" "}
          <span class={`badge ${f.action === "deleted" ? "badge-del" : "badge-updated"}`}>{f.action}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The question before a revert or redo, a native modal <dialog>: what the dry run says would
 * change, the files changed by hand that would be overwritten set apart at the top, the files it
 * leaves as they are (changed by hand or by another session) listed apart with a checkbox each,
 * and the buttons. Esc (or Cancel) closes it and changes nothing.
 */
function Ask({ flow }: { flow: RevertFlow }) {
  const ref = useRef<HTMLDialogElement>(null);
  const go = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const p = flow.preview;
  const hand = p?.hand_edited ?? [];
  const kept = p?.kept ?? [];
  const revert = flow.kind === "revert";
  // Ready: the button that does it takes the focus, unless it would overwrite changes by hand.
  useEffect(() => {
    if (flow.phase === "confirm" && hand.length === 0 && !flow.error) go.current?.focus();
  }, [flow.phase]);

  const title = revert ? "Revert to before this message?" : "Redo: bring the reverted turns back?";
  const what = revert
    ? `The files this session’s runs changed go back to how they were before ${quoted(flow.target?.text ?? "")}, and that turn and every later one are taken back: the agent no longer sees them (they stay here, dimmed). Redo brings them back until the conversation goes on.`
    : "The files the revert changed go back to how they were just before it, and the turns it took back count again.";
  const verb = revert ? "Revert" : "Redo";
  return (
    <dialog
      ref={ref}
      class="revert-dialog"
      aria-labelledby="revert-dialog-title"
      aria-describedby="revert-dialog-desc"
      onClose={closeRevert}
    >
      <h2 id="revert-dialog-title">{title}</h2>
      <p id="revert-dialog-desc">{what}</p>
      {flow.phase === "checking" && (
        <p class="muted" role="status">
          Checking what would change…
        </p>
      )}
      {hand.length > 0 && (
        <section class="revert-warning" aria-labelledby="revert-hand-title">
          <h3 id="revert-hand-title">Changed by hand since the agent’s last step</h3>
          <p>
            {revert ? "Reverting" : "Redoing"} overwrites your own changes to {hand.length === 1 ? "this file" : `these ${hand.length} files`}:
          </p>
          <ul class="revert-files">
            {hand.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
      {p && (
        <section class="revert-changes" aria-labelledby="revert-files-title">
          <h3 id="revert-files-title">
            {p.files.length > 0 ? `Files that change (${p.files.length})` : kept.length > 0 ? "None of this session’s files change" : "No files change"}
          </h3>
          {p.files.length > 0 && <FileList files={p.files} />}
        </section>
      )}
      {kept.length > 0 && (
        <RevertKept kept={kept} ticked={flow.ticked} verb={revert ? "revert" : "redo"} disabled={flow.phase !== "confirm"} />
      )}
      <FormError error={flow.error} />
      <div class="row dialog-actions">
        {flow.phase !== "failed" && (
          <button
            type="button"
            ref={go}
            class={`btn ${hand.length > 0 ? "danger" : "primary"}`}
            disabled={flow.phase !== "confirm"}
            onClick={() => void confirmRevert()}
          >
            {flow.phase === "applying"
              ? revert
                ? "Reverting…"
                : "Redoing…"
              : hand.length > 0
                ? `${verb} and overwrite my changes`
                : verb}
          </button>
        )}
        <button type="button" class="btn ghost" onClick={closeRevert} autofocus>
          {flow.phase === "failed" ? "Close" : "Cancel"}
        </button>
      </div>
    </dialog>
  );
}
