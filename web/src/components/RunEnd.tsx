import { useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { RunState } from "../state/transcript";
import { count, duration } from "../util/format";
import { ErrorNote } from "./ErrorNote";

export function RunEnd({ run }: { run: RunState }) {
  const [retry, setRetry] = useState<"idle" | "sending" | "sent">("idle");
  const [error, setError] = useState<string | null>(null);
  const f = run.finished;
  if (!f) return null;
  const u = f.usage;
  // A failed run's prompt can be sent again (an interrupted one is for Resume, which continues it).
  const canRetry = f.status === "failed" && !run.superseded && run.prompt !== null && retry !== "sent";
  const again = async () => {
    if (run.prompt === null) return;
    setRetry("sending");
    setError(null);
    try {
      await api.sendMessage(f.session, run.prompt);
      setRetry("sent");
    } catch (e) {
      setError(errorText(e));
      setRetry("idle");
    }
  };
  return (
    <div class={`run-end run-${f.status}`} data-run-id={run.id} data-status={f.status}>
      <span class="run-status">{f.status}</span>
      {f.duration_ms != null && <span>{duration(f.duration_ms)}</span>}
      {u && (
        <span title={`${u.input_tokens} input tokens, ${u.output_tokens} output tokens`}>
          {count(u.input_tokens)} in · {count(u.output_tokens)} out
        </span>
      )}
      {f.error && (
        <div class="run-error">
          <ErrorNote code={f.error.code} message={f.error.message} />
        </div>
      )}
      {canRetry && (
        <div class="run-retry">
          <button type="button" class="btn small" disabled={retry === "sending"} onClick={() => void again()}>
            {retry === "sending" ? "Sending…" : "Retry"}
          </button>
          {error && (
            <span class="error small" role="alert">
              {error}
            </span>
          )}
        </div>
      )}
    </div>
  );
}
