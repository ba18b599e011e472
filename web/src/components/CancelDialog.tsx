import { useEffect, useRef } from "preact/hooks";

/**
 * Asked when the user cancels a run while messages wait behind it: cancel those too, or let them
 * run. A native modal <dialog>: focus stays inside, Esc closes it without cancelling anything.
 */
export function CancelDialog({
  queued,
  onChoice,
}: {
  queued: number;
  onChoice: (choice: "drop" | "keep" | null) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Closed, the focus goes back where it was (the prompt, after Esc there): while the modal dialog
  // is open nothing outside it can take it.
  const back = useRef(document.activeElement);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      const el = back.current;
      if (el instanceof HTMLElement && el.isConnected) el.focus({ preventScroll: true });
    };
  }, []);
  const plural = queued === 1 ? "message is" : "messages are";
  return (
    <dialog
      ref={ref}
      class="cancel-dialog"
      aria-labelledby="cancel-dialog-title"
      aria-describedby="cancel-dialog-desc"
      onCancel={(e) => {
        e.preventDefault();
        onChoice(null);
      }}
    >
      <h2 id="cancel-dialog-title">Cancel the run?</h2>
      <p id="cancel-dialog-desc">
        {queued} queued {plural} waiting behind it. Drop them too, or send them once the run has stopped?
      </p>
      <div class="row dialog-actions">
        <button type="button" class="btn danger" onClick={() => onChoice("drop")}>
          Cancel and drop the queue
        </button>
        <button type="button" class="btn" onClick={() => onChoice("keep")} autofocus>
          Cancel, keep the queue
        </button>
        <button type="button" class="btn ghost" onClick={() => onChoice(null)}>
          Don’t cancel
        </button>
      </div>
    </dialog>
  );
}
