import { useState } from "preact/hooks";
import type { TodoItem, TodosPart } from "../api/types";
import type { Item } from "../state/items";
import { pinnedPanelStartsOpen } from "../state/layout";

/** The agent's checklist as its latest `todo_write` set it (the newest one in the loaded pages). */
export function latestTodos(items: readonly Item[]): TodoItem[] | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind !== "tool" || it.tool !== "todo_write" || !it.result?.ok) continue;
    const part = it.result.parts.find((p): p is TodosPart => p.type === "todos");
    if (part) return part.items;
  }
  return null;
}

const MARK: Record<TodoItem["status"], string> = { done: "✓", in_progress: "▸", pending: "○" };
const SAID: Record<TodoItem["status"], string> = { done: "done", in_progress: "in progress", pending: "to do" };

/** The checklist pinned above the composer: what is done, what the agent is on, what is left. */
export function TodoPanel({ sessionId, items }: { sessionId: string; items: readonly Item[] }) {
  // On a phone the checklist starts folded (its summary says how far it is).
  const [unfold] = useState(pinnedPanelStartsOpen);
  const todos = latestTodos(items);
  if (!todos || todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "done").length;
  const titleId = `todo-title-${sessionId}`;
  return (
    <section class="todo-panel" aria-labelledby={titleId}>
      <details open={unfold && done < todos.length}>
        <summary class="todo-title" id={titleId}>
          Checklist <span class="muted small">{done} of {todos.length} done</span>
        </summary>
        <ol class="todo-list">
          {todos.map((t, i) => (
            <li key={i} class={`todo-item todo-${t.status}`} data-status={t.status}>
              <span class="todo-mark" aria-hidden="true">
                {MARK[t.status]}
              </span>
              <span class="todo-text">{t.text}</span>
              <span class="visually-hidden"> ({SAID[t.status]})</span>
            </li>
          ))}
        </ol>
      </details>
    </section>
  );
}
