import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api/client";
import type { QuestionAnswers } from "../api/types";
import { useAction } from "../state/action";
import type { QuestionState } from "../state/transcript";
import { FormError } from "./FormError";

/** undefined: not answered yet; null: skipped; labels: chosen. */
type Draft = (string[] | null | undefined)[];

/**
 * ask_user_question: 1–4 multiple-choice questions, one at a time. Keyboard:
 * arrows / Space / 1–9 choose, Enter goes on (submits after the last), Esc
 * skips only the current question.
 */
export function QuestionPanel({
  question: q,
  asker = "The agent",
}: {
  question: QuestionState;
  /** Who asks, as the panel's title says it. */
  asker?: string;
}) {
  const n = q.questions.length;
  const [draft, setDraftState] = useState<Draft>(() => q.questions.map(() => undefined));
  const [cur, setCurState] = useState(0);
  // Key handlers read the latest answers and position from these, not from the last render:
  // keys typed faster than a render (two choices, then Enter) must all count.
  const draftRef = useRef<Draft>(draft);
  const curRef = useRef(0);
  const setDraft = (next: Draft) => {
    draftRef.current = next;
    setDraftState(next);
  };
  const setCur = (i: number) => {
    curRef.current = i;
    setCurState(i);
  };
  // The panel goes away with the question_answered event (a subagent's: its child_pending): busy until then.
  const answer = useAction(
    async (answers: QuestionAnswers) => {
      try {
        await api.answerQuestion(q.id, answers);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409)) throw err; // a 409: answered elsewhere
      }
    },
    { stayBusy: true },
  );
  const busy = answer.busy;
  const root = useRef<HTMLFormElement>(null);

  // Take the focus when the panel appears, unless the user is typing somewhere. Layout effects:
  // the focus is in place before the panel is painted, so no key goes astray meanwhile.
  useLayoutEffect(() => {
    const a = document.activeElement as HTMLInputElement | HTMLTextAreaElement | null;
    const typing = a && (a.tagName === "TEXTAREA" || a.tagName === "INPUT") && a.value;
    if (!typing) focusCurrent();
  }, [q.id]);

  useLayoutEffect(() => {
    focusCurrent();
  }, [cur]);

  function focusCurrent() {
    const el = root.current;
    if (!el) return;
    const first =
      el.querySelector<HTMLInputElement>(".q-current input:checked") ??
      el.querySelector<HTMLInputElement>(".q-current input");
    first?.focus({ preventScroll: false });
  }

  const submit = (final: Draft) => answer.run(final.map((a) => (a && a.length ? a : null)));

  const advance = (next: Draft) => {
    const at = curRef.current;
    setDraft(next);
    const later = next.findIndex((a, i) => i > at && a === undefined);
    if (later >= 0) setCur(later);
    else if (at < n - 1) setCur(at + 1);
    else void submit(next);
  };

  const skipCurrent = () => {
    const next = [...draftRef.current];
    next[curRef.current] = null;
    advance(next);
  };

  const goOn = () => {
    const next = [...draftRef.current];
    if (next[curRef.current] === undefined) next[curRef.current] = null;
    advance(next);
  };

  const choose = (i: number, label: string, multi: boolean, on?: boolean) => {
    const next = [...draftRef.current];
    if (multi) {
      const set = new Set(next[i] ?? []);
      const add = on ?? !set.has(label);
      if (add) set.add(label);
      else set.delete(label);
      // Keep the options' order.
      next[i] = q.questions[i].options.map((o) => o.label).filter((l) => set.has(l));
    } else {
      next[i] = [label];
    }
    setDraft(next);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (busy) return;
    const target = e.target as HTMLElement;
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      skipCurrent();
      return;
    }
    if (e.key === "Enter" && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) {
      if (target.tagName === "BUTTON") return; // the button's own action
      e.preventDefault();
      goOn();
      return;
    }
    if (/^[1-9]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const at = curRef.current;
      const x = q.questions[at];
      const o = x.options[Number(e.key) - 1];
      if (o) {
        e.preventDefault();
        choose(at, o.label, !!x.multi_select);
        root.current?.querySelectorAll<HTMLInputElement>(".q-current input")[Number(e.key) - 1]?.focus();
      }
    }
  };

  const x = q.questions[cur];
  const multi = !!x?.multi_select;
  const chosen = draft[cur] ?? [];

  return (
    <form
      ref={root}
      class="question-panel"
      data-question-id={q.id}
      aria-label={`${asker} asks`}
      onKeyDown={onKeyDown}
      onSubmit={(e) => {
        e.preventDefault();
        void submit(draftRef.current);
      }}
    >
      <header class="question-panel-head">
        <span class="approval-icon" aria-hidden="true">?</span>
        <b>{asker} asks</b>
        {n > 1 && (
          <span class="q-steps" role="tablist" aria-label="Questions">
            {q.questions.map((qq, i) => {
              const a = draft[i];
              return (
                <button
                  type="button"
                  key={i}
                  role="tab"
                  aria-selected={i === cur}
                  class={`q-step${i === cur ? " current" : ""}${a === null ? " skipped" : a ? " done" : ""}`}
                  onClick={() => setCur(i)}
                  title={qq.question}
                >
                  {qq.header || `Q${i + 1}`}
                  {a === null ? " · skipped" : a && a.length ? " ✓" : ""}
                </button>
              );
            })}
          </span>
        )}
        <span class="muted small q-count">
          {cur + 1} / {n}
        </span>
      </header>
      {x && (
        <fieldset class="question q-current" key={cur} data-index={cur}>
          <legend>
            {x.header && <span class="chip">{x.header}</span>} {x.question}
            {multi && <span class="muted small"> (choose any)</span>}
          </legend>
          {x.options.map((o, j) => (
            <label key={j} class={`option${chosen.includes(o.label) ? " chosen" : ""}`}>
              <input
                type={multi ? "checkbox" : "radio"}
                name={`q-${q.id}-${cur}`}
                value={o.label}
                checked={chosen.includes(o.label)}
                disabled={busy}
                onChange={(e) => choose(cur, o.label, multi, (e.target as HTMLInputElement).checked)}
              />
              <span class="option-key" aria-hidden="true">
                {j + 1}
              </span>
              <span class="option-text">
                <span class="option-label">{o.label}</span>
                {o.recommended && <span class="badge badge-recommended">recommended</span>}
                {o.description && <span class="muted small block">{o.description}</span>}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <div class="approval-actions">
        {cur < n - 1 ? (
          <button type="button" class="btn primary" disabled={busy} onClick={goOn}>
            Next
          </button>
        ) : (
          <button type="submit" class="btn primary" disabled={busy}>
            {busy ? "Sending…" : "Submit answers"}
          </button>
        )}
        <button type="button" class="btn ghost" disabled={busy} onClick={skipCurrent} title="Esc">
          Skip this question
        </button>
        <span class="muted small kbd-hint">1–{x?.options.length ?? 4} choose · Enter next · Esc skip</span>
      </div>
      <FormError error={answer.error} small />
    </form>
  );
}
