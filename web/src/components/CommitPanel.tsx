import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, errorText, gitApi } from "../api/client";
import { useAction } from "../state/action";
import { draftCommitMessage } from "../state/commitDraft";
import { closeCommitPanel } from "../state/gitPanel";
import { openTranscript } from "../state/sessions";
import { FormError } from "./FormError";
import { GitPullRequestForm } from "./GitPullRequestForm";
import { GitPushForm } from "./GitPushForm";
import "../commit.css";

type GitState = Awaited<ReturnType<typeof gitApi.state>>;
type GitFile = GitState["staged"][number];

/** Files listed per group before "and N more". */
const SHOWN_FILES = 40;

/** The session's count of finished runs: the repository is read again when it moves. */
function useRunMarks(sessionId: string): number {
  const [marks, setMarks] = useState(0);
  useEffect(() => {
    const handle = openTranscript(sessionId);
    const t = handle.transcript;
    const read = () => setMarks(t.snapshot().runMarks);
    read();
    const off = t.subscribe(read);
    return () => {
      off();
      handle.release();
    };
  }, [sessionId]);
  return marks;
}

/**
 * The user's own git actions in the session's repository (never an approval): what is staged,
 * changed and untracked; commit what is staged or every tracked change (the agent can draft the
 * message), amend, push (force only with the branch's name typed), apply a worktree's branch to
 * the main checkout, open a pull request. Staging hunk by hunk is the review's.
 */
export function CommitPanel({ sessionId, title }: { sessionId: string; title: string }) {
  const [state, setState] = useState<GitState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [n, setN] = useState(0);
  const [message, setMessage] = useState("");
  const [amend, setAmend] = useState(false);
  const [how, setHow] = useState<"merge" | "cherry_pick">("merge");
  /** What the last action printed, and what it was. */
  const [output, setOutput] = useState<{ what: string; text: string; url?: string | null } | null>(null);
  const runMarks = useRunMarks(sessionId);
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const opener = useRef(document.activeElement);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus({ preventScroll: false }), []);

  useEffect(() => {
    let live = true;
    gitApi.state(sessionId).then(
      (s) => {
        if (!live) return;
        setState(s);
        setLoadError(null);
      },
      (e) => {
        if (!live) return;
        setLoadError(e instanceof ApiError && e.status === 422 ? "This session's workspace is not a git repository." : errorText(e));
      },
    );
    return () => {
      live = false;
    };
  }, [sessionId, n, runMarks]);
  const refresh = () => setN((x) => x + 1);

  const commit = useAction(async (all: boolean) => {
    const r = await gitApi.commit(sessionId, message.trim(), all, amend);
    setMessage("");
    setAmend(false);
    setOutput({ what: amend ? "Amended" : "Committed", text: r.output });
    refresh();
  });

  const apply = useAction(async () => {
    const r = await gitApi.apply(sessionId, how);
    setOutput({ what: "Applied to the main checkout", text: r.output });
    refresh();
  });

  // The agent drafts a message: the prompt shows in the conversation; its answer fills the box.
  const [drafting, setDrafting] = useState<{ cancel: () => void } | null>(null);
  const [draftError, setDraftError] = useState<string | null>(null);
  useEffect(() => () => drafting?.cancel(), [drafting]);
  const askDraft = () => {
    setDraftError(null);
    const d = draftCommitMessage(sessionId);
    setDrafting(d);
    d.message.then(
      (m) => {
        setMessage(m);
        setDrafting(null);
        box.current?.focus();
      },
      (e) => {
        if (e instanceof Error && e.message === "cancelled") return;
        setDraftError(`No message drafted: ${errorText(e)}`);
        setDrafting(null);
      },
    );
  };

  const close = () => {
    closeCommitPanel();
    const back = opener.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
  };
  // Esc closes the panel, except in a box holding typed words (they would be lost with it).
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    if ((t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && t.type === "text")) && t.value !== "") return;
    e.preventDefault();
    close();
  };

  const s = state;
  const tracked = s ? s.staged.length + s.unstaged.length : 0;
  const canMessage = message.trim().length > 0;
  return (
    <section class="commit-panel" aria-labelledby={`${id}-h`} onKeyDown={onKeyDown}>
      <header class="panel-head">
        <h2 id={`${id}-h`} ref={heading} tabIndex={-1}>
          Commit
        </h2>
        {s && (
          <span class="git-branch small">
            <code>{s.branch ?? "detached HEAD"}</code>
            {s.upstream && (
              <span class="muted">
                {" "}
                → {s.upstream}
                {s.ahead > 0 && <> · {s.ahead} ahead</>}
                {s.behind > 0 && <> · {s.behind} behind</>}
              </span>
            )}
          </span>
        )}
        <span class="spacer" />
        <button type="button" class="btn small ghost" onClick={refresh}>
          Refresh
        </button>
        <button type="button" class="btn small ghost" aria-label="Close the commit panel" title="Esc" onClick={close}>
          <span aria-hidden="true">✕</span>
        </button>
      </header>
      <FormError error={loadError} small />
      {s && (
        <>
          {s.head && (
            <p class="git-head small">
              <span class="muted">Last commit </span>
              <code>{s.head.slice(0, 10)}</code> <span class="git-head-subject">{s.head_subject ?? ""}</span>
            </p>
          )}
          <div class="git-files">
            <FileGroup title="Staged" files={s.staged} empty="Nothing staged (stage hunks in the review, or commit all tracked changes)." />
            <FileGroup title="Not staged" files={s.unstaged} />
            <FileGroup title="Untracked" files={s.untracked} note="Not in a commit until added." />
          </div>

          <form
            class="git-commit"
            onSubmit={(e) => {
              e.preventDefault();
              if (canMessage) void commit.run(s.staged.length === 0 && !amend);
            }}
          >
            <label class="field">
              <span>Commit message</span>
              <textarea
                ref={box}
                name="commit-message"
                rows={3}
                value={message}
                onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)}
              />
            </label>
            <div class="git-row">
              <button type="button" class="btn small ghost" disabled={drafting !== null} onClick={askDraft}>
                {drafting ? "The agent is drafting…" : "Ask the agent to draft"}
              </button>
              {drafting && (
                <button type="button" class="btn small ghost" onClick={() => setDrafting(null)}>
                  Stop waiting
                </button>
              )}
              <label class="git-check">
                <input type="checkbox" name="amend" checked={amend} onChange={(e) => setAmend((e.target as HTMLInputElement).checked)} />
                Amend the last commit
              </label>
            </div>
            <FormError error={draftError} small />
            <div class="git-row">
              <button
                type="button"
                class="btn small primary"
                disabled={!canMessage || commit.busy || (s.staged.length === 0 && !amend)}
                onClick={() => void commit.run(false)}
              >
                {commit.running?.[0] === false ? "Committing…" : amend ? "Amend with staged" : "Commit staged"}
              </button>
              <button type="button" class="btn small" disabled={!canMessage || commit.busy || (tracked === 0 && !amend)} onClick={() => void commit.run(true)}>
                {commit.running?.[0] === true ? "Committing…" : "Commit all tracked changes"}
              </button>
            </div>
            <p class="muted small">
              {s.identity ? (
                <>
                  As {s.identity.name} &lt;{s.identity.email}&gt;, your own git identity; hooks are not run.
                </>
              ) : (
                <>No git identity: set user.name and user.email in your ~/.gitconfig first.</>
              )}
            </p>
            <FormError error={commit.error} small />
          </form>

          <GitPushForm
            sessionId={sessionId}
            branch={s.branch ?? null}
            remotes={s.remotes}
            upstream={s.upstream ?? null}
            onDone={(text) => {
              setOutput({ what: "Pushed", text });
              refresh();
            }}
          />

          {(s.worktree || s.forges.length > 0) && (
            <div class="git-more">
              {s.worktree && (
                <div class="git-row" role="group" aria-label="Apply to the main checkout">
                  <label class="git-inline">
                    <span>Apply by</span>
                    <select value={how} onChange={(e) => setHow((e.target as HTMLSelectElement).value === "cherry_pick" ? "cherry_pick" : "merge")}>
                      <option value="merge">merging the branch</option>
                      <option value="cherry_pick">cherry-picking its commits</option>
                    </select>
                  </label>
                  <button type="button" class="btn small" disabled={apply.busy} onClick={() => void apply.run()}>
                    {apply.busy ? "Applying…" : "Apply to main checkout"}
                  </button>
                </div>
              )}
              <FormError error={apply.error} small />
              {s.forges.length > 0 && (
                <GitPullRequestForm
                  sessionId={sessionId}
                  title={title}
                  forges={s.forges}
                  onDone={(text, url) => setOutput({ what: "Opened", text, url })}
                />
              )}
            </div>
          )}

          {output && (
            <div class="git-output" role="status">
              <p class="small">
                <b>{output.what}.</b>{" "}
                {output.url && (
                  <a href={output.url} target="_blank" rel="noopener noreferrer">
                    {output.url}
                  </a>
                )}
              </p>
              {output.text.trim() && <pre class="git-output-text">{output.text.trim()}</pre>}
            </div>
          )}
        </>
      )}
    </section>
  );
}

function FileGroup({ title, files, empty, note }: { title: string; files: readonly GitFile[]; empty?: string; note?: string }) {
  if (files.length === 0 && !empty) return null;
  const shown = files.slice(0, SHOWN_FILES);
  return (
    <div class="git-file-group">
      <h3>
        {title} <span class="muted">({files.length})</span>
      </h3>
      {files.length === 0 ? (
        <p class="muted small">{empty}</p>
      ) : (
        <ul class="git-file-list">
          {shown.map((f) => (
            <li key={f.path}>
              <abbr class={`git-status git-status-${statusClass(f.status)}`} title={STATUS_NAMES[f.status] ?? f.status}>
                {f.status}
              </abbr>{" "}
              <code class="git-path">{f.path}</code>
            </li>
          ))}
          {files.length > shown.length && <li class="muted small">and {files.length - shown.length} more</li>}
        </ul>
      )}
      {note && files.length > 0 && <p class="muted small">{note}</p>}
    </div>
  );
}

const STATUS_NAMES: Record<string, string> = {
  M: "modified",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "conflicted",
  "?": "untracked",
  T: "type changed",
};

function statusClass(s: string): string {
  switch (s) {
    case "A":
    case "?":
      return "add";
    case "D":
      return "del";
    case "U":
      return "conflict";
    default:
      return "mod";
  }
}
