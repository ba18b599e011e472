import type { WakeupItem } from "../state/transcript";
import { InlineCode } from "./InlineCode";

/**
 * The wake-up text is written for the model: its header repeats this note's label and its last
 * line tells the model which tool to call. The user sees the list of tasks in between.
 */
export function wakeupSummary(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^Background tasks? finished:?\s*$/i.test(l.trim()) && !/^Read (their|its) output with bg_output/i.test(l.trim()))
    .join("\n")
    .trim();
}

/** A wake-up: background tasks ended and the agent was woken to look at them. */
export function WakeupNote({ item }: { item: WakeupItem }) {
  const n = item.taskIds.length;
  const summary = wakeupSummary(item.text);
  return (
    <div class="wakeup" role="note" data-wakeup-tasks={item.taskIds.join(" ")}>
      <span class="wakeup-label">
        Background task{n === 1 ? "" : "s"} finished
        {n > 1 ? ` (${n})` : ""}
      </span>
      {summary && (
        <ul class="wakeup-text">
          {summary.split("\n").map((line, i) => (
            <li key={i}>
              <InlineCode text={line.replace(/^\s*-\s+/, "")} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
