// Where Regenerate is offered: the last finished answer, read from the transcript's items alone
// (`regenerate` in revert.ts does it).
import type { AssistantItem, Item, RunState, UserItem } from "./items";

/** The answer Regenerate is offered on, and the prompt it sends again. */
export interface RegenerateTarget {
  answer: AssistantItem;
  prompt: UserItem;
}

/**
 * Where Regenerate is offered (null: nowhere): on the last answer not taken back, when nothing
 * runs, its run has finished, and the last prompt not taken back is the user's own, typed (not a
 * `!command`, a server-written prompt or one steered into a run already going), and started that
 * run.
 */
export function regenerateTarget(items: readonly Item[], runs: ReadonlyMap<string, RunState>, activeRun: string | null): RegenerateTarget | null {
  if (activeRun) return null;
  let answer: AssistantItem | null = null;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.takenBack) continue;
    if (it.kind === "assistant" && !answer) answer = it;
    if (it.kind !== "user") continue;
    if (it.internal === "wakeup") return null;
    const finished = it.run !== null && runs.get(it.run)?.finished;
    const ok = it.editable && it.messageId !== "" && it.steeredFrom === null && finished;
    if (!ok || !answer || answer.run !== it.run || !answer.complete || !answer.text) return null;
    return { answer, prompt: it };
  }
  return null;
}
