export function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <details class="reasoning" open={streaming || undefined}>
      <summary>{streaming ? "Thinking…" : "Reasoning"}</summary>
      <div class="reasoning-text">{text}</div>
    </details>
  );
}
