// One user action that talks to the server (save, send, approve, delete…): whether it is under
// way, and what its last failure said. The views show `busy` on their buttons and `error` in a
// `FormError`; neither is written out again in each of them.
import { useCallback, useRef, useState } from "preact/hooks";
import { errorText } from "../api/client";

export interface ActionOptions<A extends unknown[]> {
  /**
   * What a failure shows (null: nothing, e.g. a 409 that the next read explains). Default: the
   * server's message (`errorText`).
   */
  message?: (e: unknown, ...args: A) => string | null;
  /**
   * After a success the action stays busy: what it caused replaces the view (an answered card
   * goes away, the app moves to another session), and nothing is to be sent twice meanwhile.
   */
  stayBusy?: boolean;
}

export interface Action<A extends unknown[]> {
  /** Start the action (nothing happens while one is under way); resolves whether it succeeded. */
  run: (...args: A) => Promise<boolean>;
  /** The arguments of the action under way (null: none), e.g. which of several buttons was pressed. */
  running: A | null;
  busy: boolean;
  /** What the last attempt's failure said (null: nothing to say). Cleared when an attempt starts. */
  error: string | null;
  /** Say something of the caller's own (a check before sending), or clear the message (null). */
  setError: (message: string | null) => void;
}

export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>, options: ActionOptions<A> = {}): Action<A> {
  const [running, setRunning] = useState<A | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The latest closure and options: a run started now uses what this render saw.
  const latest = useRef({ fn, options });
  latest.current = { fn, options };
  const underWay = useRef(false);
  const run = useCallback(async (...args: A): Promise<boolean> => {
    if (underWay.current) return false;
    underWay.current = true;
    setRunning(args);
    setError(null);
    try {
      await latest.current.fn(...args);
    } catch (e) {
      const { message } = latest.current.options;
      setError(message ? message(e, ...args) : errorText(e));
      underWay.current = false;
      setRunning(null);
      return false;
    }
    if (!latest.current.options.stayBusy) {
      underWay.current = false;
      setRunning(null);
    }
    return true;
  }, []);
  return { run, running, busy: running !== null, error, setError };
}
