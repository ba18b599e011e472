import type { WakeupItem } from "../state/transcript";

/** A wake-up: background tasks ended and the agent was woken to look at them. */
export function WakeupNote({ item }: { item: WakeupItem }) {
  const n = item.taskIds.length;
  return (
    <div class="wakeup" role="note" data-wakeup-tasks={item.taskIds.join(" ")}>
      <span class="wakeup-label">
        Background task{n === 1 ? "" : "s"} finished
        {n > 1 ? ` (${n})` : ""}
      </span>
      {item.text && <pre class="wakeup-text">{item.text}</pre>}
    </div>
  );
}
