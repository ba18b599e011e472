import type { RevertItem } from "../state/transcript";
import { startRedo } from "../state/revert";

/** A prompt as a short quotation: “fix the test” (cut after about 60 characters). */
export function quoted(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  if (!one) return "that message";
  return `“${one.length > 60 ? `${one.slice(0, 57).trimEnd()}…` : one}”`;
}

function filesWord(n: number): string {
  return `${n} file${n === 1 ? "" : "s"}`;
}

/**
 * Where a revert happened: what it did, the files folded away, and Redo while it can still be
 * undone. After a redo it says so; the turns it took back are then shown as before.
 */
export function RevertNote({ item }: { item: RevertItem }) {
  const n = item.files.length;
  const line = n > 0 ? `Reverted ${filesWord(n)} to before ${quoted(item.prompt)}` : `Reverted to before ${quoted(item.prompt)} (no files changed)`;
  return (
    <div class="system-note revert-note" role="note" data-revert-id={item.revertId} data-state={item.undone ? "undone" : "active"}>
      <span class="system-note-label">
        {line}
        {item.undone && ` · Redone: ${item.redoFiles.length > 0 ? `${filesWord(item.redoFiles.length)} and ` : ""}the turns are back`}
      </span>
      {item.redoable && (
        <>
          {" · "}
          <button type="button" class="linklike revert-redo" onClick={() => startRedo(item.sessionId)}>
            Redo
          </button>
        </>
      )}
      {n > 0 && (
        <details class="system-note-details">
          <summary>Files</summary>
          <ul class="revert-files">
            {item.files.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> {f.action}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
