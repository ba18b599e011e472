import type { Session } from "../api/types";
import { serverConfig } from "../state/app";
import { commitPanel } from "../state/gitPanel";
import { useObservable } from "../state/observable";
import { terminals } from "../state/terminals";
import { lazyModule } from "../util/lazyModule";
import { FormError } from "./FormError";
import "../session-tools.css";

type TerminalModule = typeof import("./TerminalPanel");
type CommitModule = typeof import("./CommitPanel");

const useTerminalModule = lazyModule<TerminalModule>(() => import("./TerminalPanel"));
const useCommitModule = lazyModule<CommitModule>(() => import("./CommitPanel"));

/** The session's terminal and commit panels, when the header's buttons have them shown. */
export function SessionToolPanels({ sessionId, session }: { sessionId: string; session: Session | null }) {
  const config = useObservable(serverConfig);
  const terminalShown = useObservable(terminals.shown(sessionId)) && config?.terminal?.enabled === true;
  const commitShown = useObservable(commitPanel) === sessionId;
  const term = useTerminalModule(terminalShown);
  const commit = useCommitModule(commitShown);
  const failed = (terminalShown && term.failed) || (commitShown && commit.failed);
  return (
    <>
      {terminalShown && term.mod && <term.mod.TerminalPanel key={sessionId} sessionId={sessionId} />}
      {commitShown && commit.mod && <commit.mod.CommitPanel key={sessionId} sessionId={sessionId} title={session?.title ?? ""} />}
      {failed && <FormError error="The panel could not be loaded: reload the page to try again." small />}
    </>
  );
}
