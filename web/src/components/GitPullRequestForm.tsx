import { useId, useState } from "preact/hooks";
import { gitApi } from "../api/client";
import { useAction } from "../state/action";
import { lastAnswer } from "../state/commitDraft";
import { FormError } from "./FormError";

/**
 * Open a pull request (`gh`) or merge request (`glab`) for the session's branch: its title and
 * description start from the session's title and the agent's last answer, to be edited before
 * sending. The branch should be pushed first.
 */
export function GitPullRequestForm({
  sessionId,
  title,
  forges,
  onDone,
}: {
  sessionId: string;
  title: string;
  forges: readonly string[];
  onDone: (output: string, url: string | null) => void;
}) {
  const [open, setOpen] = useState(false);
  const [prTitle, setTitle] = useState(title);
  const [body, setBody] = useState("");
  const [base, setBase] = useState("");
  const id = useId();
  const send = useAction(async () => {
    const r = await gitApi.pullRequest(sessionId, prTitle.trim(), body, base.trim() || undefined);
    setOpen(false);
    onDone(r.output, r.url ?? null);
  });
  const what = forges.includes("gh") ? "pull request" : "merge request";

  if (!open) {
    return (
      <button
        type="button"
        class="btn small"
        onClick={() => {
          setTitle(title);
          setBody(lastAnswer(sessionId));
          setOpen(true);
        }}
      >
        Open {what}…
      </button>
    );
  }
  return (
    <form
      class="git-pr"
      aria-labelledby={`${id}-h`}
      onSubmit={(e) => {
        e.preventDefault();
        if (prTitle.trim()) void send.run();
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <h3 id={`${id}-h`}>Open {what}</h3>
      <label class="field">
        <span>Title</span>
        <input name="pr-title" value={prTitle} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} autofocus />
      </label>
      <label class="field">
        <span>Description</span>
        <textarea name="pr-body" rows={6} value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
      </label>
      <label class="field">
        <span>Into branch (blank: the repository's default)</span>
        <input name="pr-base" value={base} autocomplete="off" onInput={(e) => setBase((e.target as HTMLInputElement).value)} />
      </label>
      <div class="git-row">
        <button type="submit" class="btn small primary" disabled={send.busy || !prTitle.trim()}>
          {send.busy ? "Opening…" : `Open ${what}`}
        </button>
        <button type="button" class="btn small ghost" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <FormError error={send.error} small />
    </form>
  );
}
