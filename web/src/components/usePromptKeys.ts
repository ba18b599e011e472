import type { RefObject } from "preact";
import { useEffect } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { QueueItem, Session } from "../api/types";
import { serverConfig } from "../state/app";
import {
  answerThroughCard,
  escapeStopsRun,
  focusPlace,
  promptFocusRequest,
  promptShortcut,
  queueEditRequest,
  requestModeCycle,
  useShortcut,
} from "../state/keys";
import { useObservable } from "../state/observable";

/**
 * The prompt's part of the keyboard (what each key is lives in state/keys): `/` brings the focus
 * here; Esc stops the run while it streams, and from the prompt while an approval waits;
 * Ctrl+Enter (⌘+Enter) allows the waiting call once; and in the prompt, Shift+Tab moves the mode
 * menu to the next mode and ↑ (nothing typed) edits the last queued message. Returns the prompt's
 * key handler: true when it used the key.
 */
export function usePromptKeys({
  sessionId,
  session,
  area,
  text,
  running,
  cardWaiting,
  approval,
  asking,
  queued,
  stop,
  say,
}: {
  sessionId: string;
  session: Session | null;
  area: RefObject<HTMLTextAreaElement | null>;
  text: string;
  /** A run of the session is at work. */
  running: boolean;
  /** The run waits on an approval, a question or a plan. */
  cardWaiting: boolean;
  /** The session's oldest waiting approval (what Ctrl+Enter allows). */
  approval: { id: string; tool: string } | null;
  /** The cancel already asks about the queue. */
  asking: boolean;
  queued: readonly QueueItem[];
  /** Stop the run as Esc does (asking first when messages are queued). */
  stop: () => void;
  /** Say something on the prompt's message line. */
  say: (message: string | null) => void;
}): (e: KeyboardEvent) => boolean {
  useShortcut("focus-prompt", () => {
    const el = area.current;
    if (!el) return false;
    el.focus();
    return true;
  });

  useShortcut("stop-run", (e) => {
    const place = focusPlace(e.target instanceof Element ? e.target : null);
    if (asking || !escapeStopsRun({ activeRun: running, cardWaiting, approvalWaiting: approval !== null, place })) return false;
    stop();
    return true;
  });

  useShortcut("allow-once", () => {
    if (!approval) return false;
    const { id, tool } = approval;
    // Through its card, as its button does; a card out of sight is answered directly.
    if (!answerThroughCard(id, "once")) {
      api.decideApproval(id, "once").catch((err) => say(`The ${tool} call could not be allowed: ${errorText(err)}`));
    }
    return true;
  });

  // A session switched to from a prompt (Alt+↑/↓) has the focus in its own prompt.
  const focusWanted = useObservable(promptFocusRequest);
  useEffect(() => {
    if (focusWanted !== sessionId) return;
    promptFocusRequest.set(null);
    area.current?.focus();
  }, [focusWanted, sessionId]);

  return (e) => {
    switch (promptShortcut(e, text === "")) {
      case "cycle-mode":
        // No mode to choose on a read-only server: Shift+Tab moves the focus back, as anywhere.
        if (!session || serverConfig.get()?.read_only) return false;
        e.preventDefault();
        requestModeCycle(session.id);
        return true;
      case "edit-queued": {
        const last = queued[queued.length - 1];
        if (!last) return false;
        e.preventDefault();
        queueEditRequest.set({ id: last.id, returnTo: area.current });
        return true;
      }
      default:
        return false;
    }
  };
}
