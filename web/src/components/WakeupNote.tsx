import type { WakeupItem } from "../state/transcript";

export function WakeupNote({ item }: { item: WakeupItem }) {
  return (
    <div class="wakeup" role="note">
      <span class="wakeup-label">⏰ Woken by background task{item.taskIds.length === 1 ? "" : "s"}</span>
      {item.text && <pre class="wakeup-text">{item.text}</pre>}
    </div>
  );
}
