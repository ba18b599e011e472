import { useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { PlanDiagram } from "../api/types";
import type { PlanState } from "../state/transcript";
import { Diagram } from "./Diagram";
import { Markdown } from "./Markdown";

const DECISION: Record<string, string> = {
  approved: "Approved",
  feedback: "Feedback sent",
  skipped: "Skipped",
  unavailable: "Not reviewed",
};

export function PlanCard({ plan }: { plan: PlanState }) {
  const e = plan.event;
  const [feedback, setFeedback] = useState("");
  const [giving, setGiving] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pending = plan.decision === null && !plan.expired;
  const diagrams: PlanDiagram[] = Array.isArray(e.diagrams) ? e.diagrams : [];
  const text = typeof e.plan === "string" ? e.plan : typeof e.markdown === "string" ? (e.markdown as string) : "";

  const decide = async (d: "approved" | "feedback" | "skipped") => {
    setBusy(true);
    setError(null);
    try {
      await api.decidePlan(plan.id, d, d === "feedback" ? feedback : undefined);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <section class={`plan-card${pending ? " pending" : ""}`} data-plan-id={plan.id} aria-label="Plan">
      <header class="plan-head">
        <span class="chip">plan</span>
        <h3>{e.title || "Proposed plan"}</h3>
        {!pending && <span class="badge">{plan.decision ? (DECISION[plan.decision] ?? plan.decision) : "expired"}</span>}
      </header>
      {text && <Markdown source={text} final />}
      {diagrams.map((d) => (
        <div class="plan-diagram" key={d.id}>
          <div class="plan-diagram-head">
            <b>{d.title || d.id}</b>
            {d.status && <span class={`badge badge-${d.status}`}>{d.status}</span>}
          </div>
          {d.explanation && <p class="muted small">{d.explanation}</p>}
          <Diagram source={d.mermaid} />
        </div>
      ))}
      {Array.isArray(e.removed) && e.removed.length > 0 && (
        <p class="muted small">Removed diagrams: {e.removed.join(", ")}</p>
      )}
      {plan.feedback && <p class="plan-feedback">Feedback: {plan.feedback}</p>}
      {pending && (
        <div class="plan-actions">
          {giving ? (
            <div class="feedback-box">
              <textarea
                aria-label="Feedback on the plan"
                value={feedback}
                rows={3}
                onInput={(ev) => setFeedback((ev.target as HTMLTextAreaElement).value)}
                autofocus
              />
              <div class="row">
                <button type="button" class="btn primary" disabled={busy || !feedback.trim()} onClick={() => void decide("feedback")}>
                  Send feedback
                </button>
                <button type="button" class="btn ghost" onClick={() => setGiving(false)}>
                  Back
                </button>
              </div>
            </div>
          ) : (
            <div class="row">
              <button type="button" class="btn primary" disabled={busy} onClick={() => void decide("approved")}>
                Approve and build
              </button>
              <button type="button" class="btn" disabled={busy} onClick={() => setGiving(true)}>
                Add feedback
              </button>
              <button type="button" class="btn ghost" disabled={busy} onClick={() => void decide("skipped")}>
                Skip
              </button>
            </div>
          )}
          {error && <p class="error small" role="alert">{error}</p>}
        </div>
      )}
    </section>
  );
}
