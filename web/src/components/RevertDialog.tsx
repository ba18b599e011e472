import { useEffect, useRef } from "preact/hooks";
import type { RevertFile, RevertScope } from "../api/types";
import { useObservable } from "../state/observable";
import { chooseScope, closeRevert, confirmRevert, type RevertFlow, revertFlow } from "../state/revert";
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

const SCOPES: { scope: RevertScope; label: string }[] = [
  { scope: "both", label: "Conversation and files" },
  { scope: "conversation", label: "Conversation only" },
  { scope: "files", label: "Files only" },
];

/** What a rewind does, for each choice of what goes back. */
function rewindText(scope: RevertScope, before: string): string {
  switch (scope) {
    case "both":
      return `The files this session’s runs changed go back to how they were before ${before}, and that turn and every later one are taken back: the agent no longer sees them (they stay here, dimmed). Redo brings them back until the conversation goes on.`;
    case "conversation":
      return `The conversation goes back to before ${before}: that turn and every later one are taken back, the agent no longer sees them (they stay here, dimmed). Every file stays as it is. Redo brings the turns back until the conversation goes on.`;
    case "files":
      return `The files this session’s runs changed go back to how they were before ${before}. The conversation stays as it is: the agent still sees every turn. Redo puts the files back until the conversation goes on.`;
  }
}

/** The choice of what a rewind takes back; choosing reads the dry run again. */
function ScopeChoice({ flow }: { flow: RevertFlow }) {
  return (
    <fieldset class="revert-scope" disabled={flow.phase === "applying"}>
      <legend>What goes back</legend>
      {SCOPES.map((o) => (
        <label key={o.scope} class="revert-scope-option">
          <input type="radio" name="revert-scope" value={o.scope} checked={flow.scope === o.scope} onChange={() => chooseScope(o.scope)} />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The question before a rewind or redo, a native modal <dialog>: what the dry run says would
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
  // The conversation alone: no file changes, none is listed.
  const files = !revert || flow.scope !== "conversation";
  // Ready the first time: the button that does it takes the focus, unless it would overwrite
  // changes by hand (a later dry run, for another choice, leaves the focus on that choice).
  const focused = useRef(false);
  useEffect(() => {
    if (flow.phase !== "confirm" || focused.current) return;
    focused.current = true;
    if (hand.length === 0 && !flow.error) go.current?.focus();
  }, [flow.phase]);

  const title = revert ? "Rewind to before this message?" : "Redo: bring back what the rewind took?";
  const what = revert
    ? rewindText(flow.scope, quoted(flow.target?.text ?? ""))
    : "What the rewind took back comes back: the files it changed go back to how they were just before it, and the turns it took back count again.";
  const verb = revert ? "Rewind" : "Redo";
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
      {revert && <ScopeChoice flow={flow} />}
      {flow.phase === "checking" && (
        <p class="muted" role="status">
          Checking what would change…
        </p>
      )}
      {hand.length > 0 && (
        <section class="revert-warning" aria-labelledby="revert-hand-title">
          <h3 id="revert-hand-title">Changed by hand since the agent’s last step</h3>
          <p>
            {revert ? "Rewinding" : "Redoing"} overwrites your own changes to {hand.length === 1 ? "this file" : `these ${hand.length} files`}:
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
      {p && !files && <p class="muted revert-files-stay">Every file stays as it is.</p>}
      {p && files && (
        <section class="revert-changes" aria-labelledby="revert-files-title">
          <h3 id="revert-files-title">
            {p.files.length > 0 ? `Files that change (${p.files.length})` : kept.length > 0 ? "None of this session’s files change" : "No files change"}
          </h3>
          {p.files.length > 0 && <FileList files={p.files} />}
        </section>
      )}
      {files && kept.length > 0 && (
        <RevertKept kept={kept} ticked={flow.ticked} verb={revert ? "rewind" : "redo"} disabled={flow.phase !== "confirm"} />
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
                ? "Rewinding…"
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
