import "../projects.css";

/** A session with no message yet: what to write in the prompt below, with examples. */
export function EmptyTranscript() {
  return (
    <div class="empty-transcript" data-empty-session>
      <p class="empty-transcript-title">No messages yet</p>
      <p class="muted">Tell the agent what to do in this folder, in plain words, in the prompt below. For example:</p>
      <ul class="empty-transcript-tips muted small">
        <li>“Explain how this project is organised.”</li>
        <li>“Find why the tests fail and fix it.”</li>
        <li>
          Type <kbd>/</kbd> for commands, <kbd>@</kbd> to mention a file, or <kbd>!</kbd> before a shell command to run it.
        </li>
      </ul>
    </div>
  );
}
