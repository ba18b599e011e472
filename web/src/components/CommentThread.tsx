import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { ReviewComment } from "../api/types";
import { useAction } from "../state/action";
import { linesLabel, statusLabel } from "../state/comments";
import { keepComment } from "../state/sessions";
import { CommentForm } from "./CommentForm";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";

/**
 * One line comment where it was written (under its last line in a diff or a plan): its status,
 * its text, the agent's answer, and Edit, Resolve (or Reopen) and Delete. `answer`: the answer
 * when the comment itself does not hold it (a plan revision's `answers`).
 */
export function CommentThread({ comment: c, answer, where }: { comment: ReviewComment; answer?: string | null; where: string }) {
  const [editing, setEditing] = useState(false);
  const act = useAction(async (what: "resolve" | "reopen" | "delete") => {
    if (what === "delete") {
      await api.deleteComment(c.id);
      keepComment(c.session, c, true);
    } else {
      keepComment(c.session, await api.patchComment(c.id, { resolved: what === "resolve" }));
    }
  });
  const said = c.answer ?? answer ?? null;
  const resolved = c.status === "resolved";
  return (
    <article class={`comment comment-${c.status}`} data-comment-id={c.id} data-status={c.status} aria-label={`Comment on ${where}`}>
      <div class="comment-head">
        <span class={`badge comment-status status-${c.status}`}>{statusLabel(c)}</span>
        <span class="muted small">{linesLabel(c)}</span>
        <span class="spacer" />
        {!editing && (
          <button type="button" class="btn small ghost" disabled={act.busy} onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        <button type="button" class="btn small ghost" disabled={act.busy} onClick={() => void act.run(resolved ? "reopen" : "resolve")}>
          {resolved ? "Reopen" : "Resolve"}
        </button>
        <button type="button" class="btn small ghost danger" disabled={act.busy} onClick={() => void act.run("delete")}>
          Delete
        </button>
      </div>
      {editing ? (
        <CommentForm
          label={`Edit the comment on ${where}`}
          initial={c.body}
          submitLabel="Save"
          onSubmit={async (body) => {
            keepComment(c.session, await api.patchComment(c.id, { body }));
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <p class="comment-body">
          <VisibleText text={c.body} />
        </p>
      )}
      {said && (
        <div class="comment-answer">
          <span class="comment-answer-who">Agent</span>
          <p>
            <VisibleText text={said} />
          </p>
        </div>
      )}
      <FormError error={act.error} small />
    </article>
  );
}
