import { useId, useState } from "preact/hooks";
import { gitApi } from "../api/client";
import { useAction } from "../state/action";
import { FormError } from "./FormError";

/**
 * Push the session's branch (the user's own action, with the user's SSH keys). A force push
 * (`--force-with-lease`) takes the branch's name typed out first.
 */
export function GitPushForm({
  sessionId,
  branch,
  remotes,
  upstream,
  onDone,
}: {
  sessionId: string;
  /** null: a detached HEAD (nothing to push to a branch of the same name). */
  branch: string | null;
  remotes: readonly string[];
  upstream: string | null;
  onDone: (output: string) => void;
}) {
  const [remote, setRemote] = useState(() => defaultRemote(remotes, upstream));
  const [force, setForce] = useState(false);
  const [typed, setTyped] = useState("");
  const id = useId();
  const push = useAction(async (withForce: boolean) => {
    const r = await gitApi.push(sessionId, withForce, withForce ? typed : null, remote || undefined);
    setForce(false);
    setTyped("");
    onDone(r.output);
  });

  if (remotes.length === 0) {
    return (
      <p class="muted small git-push-none">
        No remote to push to: add one with <code>git remote add</code>.
      </p>
    );
  }
  if (!branch) return <p class="muted small">HEAD is detached: check out a branch to push it.</p>;
  const confirmed = typed === branch;
  return (
    <div class="git-push" role="group" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Push</h3>
      <div class="git-row">
        {remotes.length > 1 && (
          <label class="git-inline">
            <span>Remote</span>
            <select value={remote} onChange={(e) => setRemote((e.target as HTMLSelectElement).value)}>
              {remotes.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" class="btn small" disabled={push.busy} onClick={() => void push.run(false)} aria-describedby={`${id}-keys`}>
          {push.running?.[0] === false ? "Pushing…" : `Push ${branch} to ${remote}`}
        </button>
        <label class="git-check">
          <input type="checkbox" checked={force} onChange={(e) => setForce((e.target as HTMLInputElement).checked)} />
          Force push…
        </label>
      </div>
      <p class="muted small" id={`${id}-keys`}>
        Pushing uses your SSH keys (or git's stored credentials) and the network, as you.
      </p>
      {force && (
        <div class="git-force">
          <label class="field">
            <span>
              A force push replaces what {remote} has. Type the branch name, <b>{branch}</b>, to confirm.
            </span>
            <input
              name="force-confirm"
              autocomplete="off"
              spellcheck={false}
              value={typed}
              onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="button" class="btn small danger" disabled={!confirmed || push.busy} onClick={() => void push.run(true)}>
            {push.running?.[0] === true ? "Force pushing…" : "Force push (with lease)"}
          </button>
        </div>
      )}
      <FormError error={push.error} small />
    </div>
  );
}

function defaultRemote(remotes: readonly string[], upstream: string | null): string {
  const fromUpstream = upstream?.split("/")[0];
  if (fromUpstream && remotes.includes(fromUpstream)) return fromUpstream;
  if (remotes.includes("origin")) return "origin";
  return remotes[0] ?? "";
}
