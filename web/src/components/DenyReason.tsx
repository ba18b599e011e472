import { useEffect, useRef, useState } from "preact/hooks";

/** The most characters of a denial's reason the server takes. */
export const DENY_REASON_MAX = 2000;

/**
 * "Deny, and tell the agent…": a labelled box for what the agent is told with the denial.
 * Ctrl+Enter (⌘+Enter) sends, Esc goes back to the buttons.
 */
export function DenyReason({
  id,
  busy,
  onSend,
  onCancel,
}: {
  /** The approval's id: the box's own ids are made from it. */
  id: string;
  busy: boolean;
  onSend: (reason: string) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState("");
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  const send = () => {
    if (text.trim() && !busy) onSend(text.trim());
  };
  const field = `deny-reason-${id}`;
  return (
    <form
      class="deny-reason"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label for={field}>Tell the agent why, or what to do instead</label>
      <textarea
        ref={area}
        id={field}
        name="reason"
        rows={2}
        maxLength={DENY_REASON_MAX}
        value={text}
        aria-describedby={`${field}-hint`}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            // The card's box, not the composer's Esc (which would stop the run).
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <p class="muted small" id={`${field}-hint`}>
        Ctrl+Enter (⌘+Enter) denies the call and sends this to the agent; Esc cancels.
      </p>
      <div class="row">
        <button type="submit" class="btn danger" disabled={busy || !text.trim()}>
          Deny and tell the agent
        </button>
        <button type="button" class="btn ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
