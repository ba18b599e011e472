import type { QuestionState } from "../state/transcript";
import { sentence } from "../util/format";

/** The question's place in the transcript: a pointer while it waits, the answers afterwards. */
export function QuestionCard({ question: q }: { question: QuestionState }) {
  const pending = q.answers === null && !q.expired;
  if (pending) {
    return (
      <div class="question-record pending" data-question-record={q.id}>
        <span class="approval-icon" aria-hidden="true">?</span>
        <span>
          The agent asks {q.questions.length === 1 ? "a question" : `${q.questions.length} questions`} — answer in the panel
          below.
        </span>
      </div>
    );
  }
  return (
    <div class="question-record" data-question-record={q.id}>
      {q.questions.map((x, i) => {
        const a = q.answers?.[i];
        return (
          <p key={i}>
            <span class="muted">{x.header ? `${x.header}: ` : ""}{x.question}</span> →{" "}
            {a && a.length > 0 ? <b>{a.join(", ")}</b> : <i class="muted">skipped</i>}
          </p>
        );
      })}
      {q.reason ? (
        <p class="muted small">{sentence(q.reason)}</p>
      ) : (
        q.expired && q.answers === null && <p class="muted small">No longer waiting for an answer.</p>
      )}
    </div>
  );
}
