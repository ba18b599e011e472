import { useEffect, useRef } from "preact/hooks";
import { type ConfirmRequest, confirmRequest } from "../state/confirm";
import { useObservable } from "../state/observable";
import "../projects.css";

/** The question `askConfirm` asks, if any: mounted once, in the app's shell. */
export function ConfirmDialog() {
  const request = useObservable(confirmRequest);
  return request ? <Ask key={request.id} request={request} /> : null;
}

/** What can take the focus inside the dialog, in tab order. */
function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>("button:not([disabled]), [href], input:not([disabled]), [tabindex]:not([tabindex='-1'])"));
}

/**
 * A modal alert dialog (a native <dialog> opened with showModal, so the page behind is inert):
 * the title says what is asked, the text what confirming does. The focus starts on the cancelling
 * button when confirming destroys something, Tab and Shift+Tab stay inside, Esc cancels, and the
 * focus goes back to where it was when the dialog opened.
 */
function Ask({ request }: { request: ConfirmRequest }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const answered = useRef(false);

  const answer = (ok: boolean) => {
    if (answered.current) return;
    answered.current = true;
    ref.current?.close();
    const back = opener.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
    request.answer(ok);
  };

  useEffect(() => {
    const d = ref.current;
    opener.current = document.activeElement;
    if (d && !d.open) d.showModal();
    const first = d?.querySelector<HTMLElement>(request.danger ? "[data-answer=cancel]" : "[data-answer=confirm]");
    first?.focus();
    // Gone without an answer (the app signed out, another question took its place): cancelled.
    return () => {
      d?.close();
      if (!answered.current) {
        answered.current = true;
        request.answer(false);
      }
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Tab" || !ref.current) return;
    const all = focusables(ref.current);
    if (all.length === 0) return;
    const at = all.indexOf(document.activeElement as HTMLElement);
    const next = e.shiftKey ? (at <= 0 ? all.length - 1 : at - 1) : at === all.length - 1 ? 0 : at + 1;
    e.preventDefault();
    all[next].focus();
  };

  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="confirm-dialog-title"
      aria-describedby={request.body ? "confirm-dialog-desc" : undefined}
      onCancel={(e) => {
        e.preventDefault();
        answer(false);
      }}
      onKeyDown={onKeyDown}
    >
      <h2 id="confirm-dialog-title">{request.title}</h2>
      {request.body && <p id="confirm-dialog-desc">{request.body}</p>}
      <div class="row dialog-actions">
        <button type="button" class="btn ghost" data-answer="cancel" onClick={() => answer(false)}>
          {request.cancel ?? "Cancel"}
        </button>
        <button type="button" class={`btn ${request.danger ? "danger" : "primary"}`} data-answer="confirm" onClick={() => answer(true)}>
          {request.confirm}
        </button>
      </div>
    </dialog>
  );
}
