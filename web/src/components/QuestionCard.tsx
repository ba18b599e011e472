import { useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { QuestionState } from "../state/transcript";

export function QuestionCard({ question: q }: { question: QuestionState }) {
  const [answers, setAnswers] = useState<(string | null)[]>(() => q.questions.map(() => null));
  const [other, setOther] = useState<string[]>(() => q.questions.map(() => ""));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pending = q.answers === null && !q.expired;

  if (!pending) {
    return (
      <div class="question-done" data-question-id={q.id}>
        {q.questions.map((x, i) => (
          <p key={i}>
            <span class="muted">{x.question}</span> → <b>{q.answers?.[i] ?? "skipped"}</b>
          </p>
        ))}
        {q.expired && q.answers === null && <p class="muted small">No longer waiting for an answer.</p>}
      </div>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const final = answers.map((a, i) => (a === "__other__" ? other[i].trim() || null : a));
      await api.answerQuestion(q.id, final);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <form class="question-card" data-question-id={q.id} onSubmit={submit}>
      <header class="approval-head">
        <span class="approval-icon" aria-hidden="true">?</span> The agent asks
      </header>
      {q.questions.map((x, i) => {
        const multi = x.multi_select ?? x.multiSelect ?? false;
        const selected = (answers[i] ?? "").split("\n").filter(Boolean);
        return (
          <fieldset key={i} class="question">
            <legend>
              {x.header && <span class="chip">{x.header}</span>} {x.question}
            </legend>
            {(x.options ?? []).map((o, j) => (
              <label key={j} class="option">
                <input
                  type={multi ? "checkbox" : "radio"}
                  name={`q-${q.id}-${i}`}
                  checked={selected.includes(o.label)}
                  onChange={(e) => {
                    const on = (e.target as HTMLInputElement).checked;
                    const next = [...answers];
                    if (multi) {
                      const set = new Set(selected);
                      if (on) set.add(o.label);
                      else set.delete(o.label);
                      next[i] = set.size ? [...set].join("\n") : null;
                    } else next[i] = o.label;
                    setAnswers(next);
                  }}
                />
                <span>
                  {o.label}
                  {o.recommended && <span class="badge badge-new">recommended</span>}
                  {o.description && <span class="muted small block">{o.description}</span>}
                </span>
              </label>
            ))}
            {!multi && (
              <label class="option">
                <input
                  type="radio"
                  name={`q-${q.id}-${i}`}
                  checked={answers[i] === "__other__"}
                  onChange={() => {
                    const next = [...answers];
                    next[i] = "__other__";
                    setAnswers(next);
                  }}
                />
                <input
                  type="text"
                  class="other"
                  placeholder="Other answer…"
                  aria-label="Other answer"
                  value={other[i]}
                  onFocus={() => {
                    const next = [...answers];
                    next[i] = "__other__";
                    setAnswers(next);
                  }}
                  onInput={(e) => {
                    const next = [...other];
                    next[i] = (e.target as HTMLInputElement).value;
                    setOther(next);
                  }}
                />
              </label>
            )}
          </fieldset>
        );
      })}
      <div class="approval-actions">
        <button type="submit" class="btn primary" disabled={busy}>
          Answer
        </button>
        <button
          type="button"
          class="btn ghost"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            api.answerQuestion(q.id, q.questions.map(() => null)).catch((err) => {
              setError(errorText(err));
              setBusy(false);
            });
          }}
        >
          Skip
        </button>
      </div>
      {error && <p class="error small" role="alert">{error}</p>}
    </form>
  );
}
