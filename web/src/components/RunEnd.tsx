import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { RunFinishedEvent, Usage } from "../api/types";
import { useAction } from "../state/action";
import { useObservable } from "../state/observable";
import { stoppedByEsc } from "../state/steering";
import type { RunState } from "../state/transcript";
import { isDailyCap } from "../util/errors";
import { count, duration, tokens, usd } from "../util/format";
import { ErrorNote } from "./ErrorNote";
import { FormError } from "./FormError";
import { SpendCapForm } from "./SpendCapForm";

/** How a run's end reads: an interrupted run says why, never "cancelled". */
function endLabel(f: RunFinishedEvent, escStopped: boolean): string {
  if (f.status === "interrupted") {
    if (f.reason === "shutdown") return "Interrupted — the server was stopped";
    if (f.reason === "crash") return "Interrupted — the server stopped unexpectedly";
    return "Interrupted";
  }
  // Stopped by the user (Stop, Esc): it reads the same after a reload as when it happened.
  if (f.status === "cancelled") return escStopped || f.reason === "user" ? "Stopped — press Resume to continue" : "Stopped";
  return f.status;
}

const STOPPED_EARLY = new Set(["interrupted", "cancelled", "failed"]);

/** What the run used: "2.7k in (1.2k cached) · 840 out · $0.42"; nothing when it made no model call. */
function RunUsage({ u }: { u: Usage }) {
  const cached = u.cached_input_tokens ?? 0;
  const reasoning = u.reasoning_tokens ?? 0;
  if (u.input_tokens + u.output_tokens === 0 && !u.cost_usd) return null;
  const title = [
    `${tokens(u.input_tokens)} input tokens${cached ? ` (${tokens(cached)} from the prompt cache)` : ""}`,
    `${tokens(u.output_tokens)} output tokens${reasoning ? ` (${tokens(reasoning)} reasoning)` : ""}`,
    u.cost_usd != null ? `cost ${usd(u.cost_usd)}` : "no known price",
  ].join(", ") + (u.estimated ? " (estimated: the run ended before the model reported its usage)" : "");
  return (
    <span class="run-usage" title={title}>
      {u.estimated ? "≈ " : ""}
      {count(u.input_tokens)} in{cached ? ` (${count(cached)} cached)` : ""} · {count(u.output_tokens)} out
      {u.cost_usd != null && (
        <>
          {" · "}
          <span class="run-cost" data-cost-usd={u.cost_usd}>
            {usd(u.cost_usd)}
          </span>
        </>
      )}
    </span>
  );
}

export function RunEnd({ run }: { run: RunState }) {
  const [sent, setSent] = useState(false);
  const resume = useAction(async () => {
    await api.resumeRun(run.id);
    setSent(true);
  });
  const esc = useObservable(stoppedByEsc);
  const f = run.finished;
  if (!f) return null;
  const u = f.usage;
  // The session's latest run, stopped early, goes on where it stopped (the same endpoint for a
  // failed run's Retry: sending the prompt again would repeat it in the model's history).
  const canResume = STOPPED_EARLY.has(f.status) && !run.superseded && !sent;
  const action = f.status === "failed" ? "Retry" : "Resume";
  // Stopped by a spend cap: a plain retry would stop again, the cap has to go up first.
  const capped = f.error?.code === "spend_cap";
  return (
    <div class={`run-end run-${f.status}`} data-run-id={run.id} data-status={f.status} data-reason={f.reason ?? undefined}>
      <span class="run-status">{endLabel(f, esc.has(run.id))}</span>
      {f.duration_ms != null && <span>{duration(f.duration_ms)}</span>}
      {u && <RunUsage u={u} />}
      {f.error && (
        <div class="run-error">
          <ErrorNote code={f.error.code} message={f.error.message} />
        </div>
      )}
      {canResume && capped && (
        <SpendCapForm
          runId={run.id}
          sessionId={f.session}
          daily={isDailyCap(f.error?.message ?? "")}
          onResumed={() => setSent(true)}
        />
      )}
      {canResume && !capped && (
        <div class="run-retry">
          <button type="button" class="btn small" disabled={resume.busy} onClick={() => void resume.run()}>
            {resume.busy ? "Sending…" : action}
          </button>
          <FormError error={resume.error} small inline />
        </div>
      )}
    </div>
  );
}
