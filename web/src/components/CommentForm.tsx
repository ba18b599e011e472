import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { useAction } from "../state/action";
import { FormError } from "./FormError";

/**
 * A line comment's text: a new one's or an edit. Ctrl+Enter (⌘+Enter) saves, Esc cancels; the
 * focus starts in it. `label` names what is commented on (the text field's accessible name).
 */
export function CommentForm({
  label,
  initial = "",
  submitLabel = "Comment",
  onSubmit,
  onCancel,
}: {
  label: string;
  initial?: string;
  submitLabel?: string;
  onSubmit: (body: string) => Promise<unknown>;
  onCancel: () => void;
}) {
  const [body, setBody] = useState(initial);
  const box = useRef<HTMLTextAreaElement>(null);
  const save = useAction(() => onSubmit(body.trim()));
  useLayoutEffect(() => box.current?.focus({ preventScroll: true }), []);
  const submit = (e: Event) => {
    e.preventDefault();
    if (body.trim()) void save.run();
  };
  return (
    <form class="comment-form" onSubmit={submit}>
      <textarea
        ref={box}
        aria-label={label}
        value={body}
        rows={3}
        placeholder="Leave a comment"
        onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            submit(e);
          }
        }}
      />
      <div class="row">
        <button type="submit" class="btn small primary" disabled={save.busy || !body.trim()}>
          {submitLabel}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
        <span class="muted small kbd-hint">Ctrl+Enter saves, Esc cancels</span>
      </div>
      <FormError error={save.error} small />
    </form>
  );
}
