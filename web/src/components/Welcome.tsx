import { useObservable } from "../state/observable";
import { newSessionForm } from "../state/projects";
import { sessions, topLevel } from "../state/sessions";
import "../projects.css";

/** Open the list's new-session form, or put the focus in it when it is open already. */
function openForm() {
  if (newSessionForm.get()) document.querySelector<HTMLElement>("form.new-session input")?.focus();
  else newSessionForm.set(true);
}

/** The home page beside the list: what Tradewind does, and (with no session yet) how to start. */
export function Welcome() {
  const list = useObservable(sessions);
  // Archived sessions count: they are listed (folded) on the left.
  const none = list !== null && topLevel(list).length === 0;
  return (
    <div class="welcome" data-welcome={none ? "empty" : "sessions"}>
      <h1>Welcome to Tradewind</h1>
      <p class="muted">
        {none ? "You have no sessions yet. " : "Pick a session on the left, or start a new one with a workspace folder. "}
        The agent reads and edits files and runs commands there; anything that changes something asks you first unless you
        choose otherwise.
      </p>
      {none && (
        <ol class="welcome-steps">
          <li>Start a session and pick the folder of your project.</li>
          <li>Tell the agent what you want done, in plain words.</li>
          <li>Approve, or deny, each change it asks to make.</li>
        </ol>
      )}
      <button type="button" class="btn primary" onClick={openForm}>
        New session
      </button>
    </div>
  );
}
