import { useEffect } from "preact/hooks";
import type { Session } from "../api/types";
import { serverConfig } from "../state/app";
import { commitPanel, gitRepo, toggleCommitPanel } from "../state/gitPanel";
import { useObservable } from "../state/observable";
import { terminalFocus, terminals } from "../state/terminals";

/**
 * The session header's Terminal and Commit buttons: Terminal when the server gives terminals
 * (`GET /api/config`), Commit when the session works in a git repository.
 */
export function SessionToolButtons({ session }: { session: Session }) {
  const config = useObservable(serverConfig);
  const canTerminal = config?.terminal?.enabled === true;
  return (
    <>
      {canTerminal && <TerminalButton sessionId={session.id} />}
      <CommitButton sessionId={session.id} />
    </>
  );
}

function TerminalButton({ sessionId }: { sessionId: string }) {
  const shown = useObservable(terminals.shown(sessionId));
  // Read here, so the terminals kept from before a reload attach again in time (10 s).
  const list = useObservable(terminals.list(sessionId));
  return (
    <button
      type="button"
      class="btn small ghost terminal-toggle"
      aria-pressed={shown}
      title="A shell in this session's sandbox"
      onClick={() => {
        if (shown) {
          terminals.setShown(sessionId, false);
          return;
        }
        if (list.length === 0) terminals.add(sessionId);
        terminals.setShown(sessionId, true);
        terminalFocus.set(sessionId);
      }}
    >
      Terminal{list.length > 1 ? ` (${list.length})` : ""}
    </button>
  );
}

function CommitButton({ sessionId }: { sessionId: string }) {
  const repo = useObservable(gitRepo(sessionId));
  const open = useObservable(commitPanel) === sessionId;
  // Another session's panel does not follow the user here.
  useEffect(() => {
    if (commitPanel.get() !== null && commitPanel.get() !== sessionId) commitPanel.set(null);
  }, [sessionId]);
  if (repo !== true) return null;
  return (
    <button
      type="button"
      class="btn small ghost commit-toggle"
      aria-pressed={open}
      title="Commit, push, apply or open a pull request: your own git actions"
      onClick={() => toggleCommitPanel(sessionId)}
    >
      Commit
    </button>
  );
}
