export function Welcome() {
  return (
    <div class="welcome">
      <h1>Welcome to Tradewind</h1>
      <p class="muted">
        Pick a session on the left, or start a new one with a workspace folder. The agent reads and
        edits files and runs commands there; anything that changes something asks you first unless
        you choose otherwise.
      </p>
    </div>
  );
}
