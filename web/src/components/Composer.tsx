import { useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import { useClearNetworkError } from "../state/reconnect";
import type { Session } from "../api/types";
import type { RunState } from "../state/transcript";
import { ModeMenu } from "./ModeMenu";

export function Composer({
  sessionId,
  session,
  activeRun,
}: {
  sessionId: string;
  session: Session | null;
  activeRun: RunState | null;
}) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useClearNetworkError(error, () => setError(null));
  const area = useRef<HTMLTextAreaElement>(null);

  const send = async () => {
    const t = text;
    if (!t.trim() || sending) return;
    setSending(true);
    setError(null);
    // Cleared at once (a fast run may ask something before the response is back); a failed send
    // gives the text back unless something new was typed meanwhile.
    setText("");
    try {
      await api.sendMessage(sessionId, t);
    } catch (e) {
      setText((now) => (now ? now : t));
      setError(errorText(e));
    } finally {
      setSending(false);
      // Stay ready for the next prompt, unless a panel that arrived meanwhile (a question, a
      // plan) took the focus: never take it back from there.
      const a = document.activeElement;
      if (!a || a === document.body || a === area.current) area.current?.focus();
    }
  };

  const cancel = async () => {
    if (!activeRun) return;
    setCancelling(true);
    try {
      await api.cancelRun(activeRun.id);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setCancelling(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      void send();
    }
  };

  const isCommand = text.startsWith("!");
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      <div class={`composer-box${isCommand ? " is-command" : ""}`}>
        <textarea
          ref={area}
          name="prompt"
          rows={2}
          value={text}
          placeholder={session?.archived ? "This session is archived" : "Ask the agent… (Enter to send, Shift+Enter for a new line, !cmd runs a command)"}
          aria-label="Prompt"
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={onKeyDown}
        />
      </div>
      <div class="composer-bar">
        {session && <ModeMenu session={session} />}
        {isCommand && <span class="chip chip-cmd">shell command</span>}
        <span class="spacer" />
        {activeRun && (
          <button type="button" class="btn danger" onClick={() => void cancel()} disabled={cancelling}>
            {cancelling ? "Cancelling…" : "Cancel run"}
          </button>
        )}
        <button type="submit" class="btn primary" disabled={sending || !text.trim()}>
          {sending ? "Sending…" : activeRun ? "Queue" : "Send"}
        </button>
      </div>
    </form>
  );
}
