// The app's own confirmation question, in place of the browser's `confirm()`: a caller awaits
// `askConfirm(...)` and gets true (the user confirmed) or false (cancelled, Esc, or another
// question took its place). One question is asked at a time; `ConfirmDialog` shows it.
import { Observable } from "./observable";

export interface ConfirmOptions {
  /** The question, the dialog's title ("Delete this session?"). */
  title: string;
  /** What confirming does, in a sentence or two. */
  body?: string;
  /** The confirming button's text ("Delete"). */
  confirm: string;
  /** The cancelling button's text. */
  cancel?: string;
  /** The confirming action destroys something: its button is styled as dangerous. */
  danger?: boolean;
}

export interface ConfirmRequest extends ConfirmOptions {
  /** Distinct per question: the dialog is made anew for each. */
  id: number;
  answer: (ok: boolean) => void;
}

/** The question being asked (null: none). */
export const confirmRequest = new Observable<ConfirmRequest | null>(null);

let ids = 0;

/** Ask the user; resolves true when they confirm. A question still open is cancelled first. */
export function askConfirm(options: ConfirmOptions): Promise<boolean> {
  confirmRequest.get()?.answer(false);
  return new Promise((resolve) => {
    const id = ++ids;
    confirmRequest.set({
      ...options,
      id,
      answer: (ok) => {
        if (confirmRequest.get()?.id === id) confirmRequest.set(null);
        resolve(ok);
      },
    });
  });
}
