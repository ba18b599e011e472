import type { WakeupItem } from "../state/transcript";
import { withoutIds } from "../util/humanText";
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

/**
 * One task's line without its id (the model's handle on it, not a name): "`watcher`: completed,
 * exit code 0"; a task without a label is "A task".
 */
export function taskLine(line: string, ids: readonly string[]): string {
  return withoutIds(line.replace(/^\s*-\s+/, ""), ids).replace(/^``(?=:)/, "A task");
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
              <InlineCode text={taskLine(line, item.taskIds)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
