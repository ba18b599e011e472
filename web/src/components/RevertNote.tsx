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

/** What a redo brought back. */
function redoneWhat(item: RevertItem): string {
  const files = item.redoFiles.length > 0 ? filesWord(item.redoFiles.length) : "";
  const turns = item.runs.length > 0 ? "the turns" : "";
  if (files && turns) return `${files} and ${turns} are`;
  if (files) return `${files} ${item.redoFiles.length === 1 ? "is" : "are"}`;
  return turns ? `${turns} are` : "nothing to bring";
}

/** What a rewind did, from what its event lists: files put back, turns taken back, or both. */
function rewoundLine(item: RevertItem): string {
  const n = item.files.length;
  const before = `to before ${quoted(item.prompt)}`;
  if (n > 0 && item.runs.length > 0) return `Rewound ${filesWord(n)} and the conversation ${before}`;
  if (n > 0) return `Rewound ${filesWord(n)} ${before}; the conversation stays`;
  if (item.runs.length > 0) return `Rewound the conversation ${before}; no files changed`;
  return `Rewound ${before}; nothing changed`;
}

/**
 * Where a rewind happened: what it did, the files folded away, and Redo while it can still be
 * undone. After a redo it says so; the turns it took back are then shown as before.
 */
export function RevertNote({ item }: { item: RevertItem }) {
  const n = item.files.length;
  const line = rewoundLine(item);
  return (
    <div class="system-note revert-note" role="note" data-revert-id={item.revertId} data-state={item.undone ? "undone" : "active"}>
      <span class="system-note-label">
        {line}
        {item.undone && ` · Redone: ${redoneWhat(item)} back`}
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
