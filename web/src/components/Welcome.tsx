export function Welcome() {
  return (
    <div class="welcome">
      <h2>Welcome to Tradewind</h2>
      <p class="muted">
        Pick a session on the left, or start a new one with a workspace folder. The agent reads and
        edits files and runs commands there; anything that changes something asks you first unless
        you choose otherwise.
      </p>
    </div>
  );
}
