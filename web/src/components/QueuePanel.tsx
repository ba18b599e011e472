import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { QueueItem } from "../api/types";
import { useAction } from "../state/action";
import { queueEditRequest } from "../state/keys";
import { useObservable } from "../state/observable";
import { queueOf, refreshQueue, registerQueueEdit } from "../state/queue";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";
import "../steer.css";

/**
 * The messages waiting behind the active run, in order, each editable and removable until it
 * starts (the server answers 409 then: the list is simply read again). A steered one (`delivery:
 * steer`) waits for the run's next tool call instead; once the run takes it, its queued run ends
 * (`run_finished`, reason `steered`) and the list, read again, no longer has it.
 */
export function QueuePanel({ sessionId, runMarks }: { sessionId: string; runMarks: number | null }) {
  const items = useObservable(queueOf(sessionId));
  useEffect(() => {
    if (runMarks !== null) void refreshQueue(sessionId);
  }, [sessionId, runMarks]);
  if (items.length === 0) return null;
  const afterRun = items.some((it) => it.delivery !== "steer");
  return (
    <section class="queue-panel" aria-labelledby={`queue-title-${sessionId}`}>
      <h2 class="queue-title" id={`queue-title-${sessionId}`}>
        Queued ({items.length}) {afterRun && <span class="muted small">— sent when the current run ends</span>}
      </h2>
      <ol class="queue-list">
        {items.map((it) => (
          <QueueRow key={it.id} sessionId={sessionId} item={it} />
        ))}
      </ol>
    </section>
  );
}

function QueueRow({ sessionId, item }: { sessionId: string; item: QueueItem }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(item.text);
  const action = useAction(
    async (f: () => Promise<void>) => {
      try {
        await f();
        setEditing(false);
      } finally {
        void refreshQueue(sessionId);
      }
    },
    // 409: it has started meanwhile; the fresh list says so without an error.
    { message: (e) => (e instanceof ApiError && e.status === 409 ? null : errorText(e)) },
  );
  const busy = action.busy;
  // ↑ in an empty prompt edits the last queued message here; the prompt has the focus back after.
  const asked = useObservable(queueEditRequest);
  const returnTo = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (asked?.id !== item.id) return;
    queueEditRequest.set(null);
    returnTo.current = asked.returnTo;
    setDraft(item.text);
    setEditing(true);
  }, [asked]);
  const editor = useRef<HTMLTextAreaElement>(null);
  // A layout effect: the caret is placed as the editor appears, before anything can type or select
  // in it (a later effect would undo a selection made meanwhile).
  useLayoutEffect(() => {
    const el = editor.current;
    // Only an edit ↑ opened puts the caret at the end: an Edit click's textarea is already focused,
    // and moving the caret then would undo a selection the user (or a test's fill) just made.
    if (editing && el && returnTo.current) {
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    } else if (!editing && returnTo.current) {
      if (returnTo.current.isConnected) returnTo.current.focus();
      returnTo.current = null;
    }
  }, [editing]);
  const save = () => action.run(() => api.editQueued(sessionId, item.id, draft.trim()));
  // While open, the editor's words are saved before a cancel that keeps the queue (CancelDialog).
  const unsaved = useRef({ draft, text: item.text, save });
  unsaved.current = { draft, text: item.text, save };
  useEffect(() => {
    if (!editing) return;
    return registerQueueEdit(sessionId, item.id, async () => {
      const u = unsaved.current;
      const words = u.draft.trim();
      if (!words || words === u.text) return true;
      return u.save();
    });
  }, [editing, sessionId, item.id]);
  const remove = () => action.run(() => api.removeQueued(sessionId, item.id));

  return (
    <li class="queue-item" data-queue-id={item.id}>
      {editing ? (
        <form
          class="queue-edit"
          onSubmit={(e) => {
            e.preventDefault();
            if (draft.trim()) void save();
          }}
        >
          <textarea
            ref={editor}
            aria-label="Queued message"
            rows={2}
            value={draft}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.preventDefault();
                e.stopPropagation();
                setEditing(false);
              }
            }}
            autofocus
          />
          <div class="row">
            <button type="submit" class="btn small primary" disabled={busy || !draft.trim()}>
              Save
            </button>
            <button type="button" class="btn small ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          {item.delivery === "steer" && <span class="queue-steer">steering — delivered at the next tool call</span>}
          <span class="queue-text">
            <VisibleText text={item.text} />
          </span>
          <span class="queue-actions">
            <button
              type="button"
              class="btn small ghost"
              aria-label={`Edit queued message ${item.position}`}
              disabled={busy}
              onClick={() => {
                setDraft(item.text);
                setEditing(true);
              }}
            >
              Edit
            </button>
            <button
              type="button"
              class="btn small ghost danger"
              aria-label={`Remove queued message ${item.position}`}
              disabled={busy}
              onClick={() => void remove()}
            >
              Remove
            </button>
          </span>
        </>
      )}
      <FormError error={action.error} small />
    </li>
  );
}
