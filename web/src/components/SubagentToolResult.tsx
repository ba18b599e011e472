import { linkClick, sessionPath } from "../state/router";
import { type ChildView, subagentResult } from "../state/subagents";
import type { ToolItem } from "../state/transcript";
import { Markdown } from "./Markdown";
import { SubagentStatus } from "./SubagentStatus";
import { VisibleText } from "./VisibleText";
import "../subagents.css";

function ChildLink({ id, text }: { id: string; text: string }) {
  const path = sessionPath(id);
  return (
    <a href={path} onClick={(e) => linkClick(e, path)}>
      <VisibleText text={text} />
    </a>
  );
}

function View({ v }: { v: ChildView }) {
  return (
    <li class="subagent-view" data-subagent-id={v.id} data-status={v.status}>
      <div class="subagent-view-line">
        <ChildLink id={v.id} text={v.description || "Untitled subagent"} />
        <SubagentStatus status={v.status} />
      </div>
      {v.error && <p class="error small">{v.error}</p>}
      {v.answer && (
        <details class="subagent-answer" open>
          <summary>Its answer</summary>
          <Markdown source={v.answer} final />
        </details>
      )}
    </li>
  );
}

/**
 * Below a `task`, `task_wait`, `task_status` or `send_message` card: the subagent it started
 * (linked), or each subagent with its status and answer, read from the result the model saw.
 */
export function SubagentToolResult({ item }: { item: ToolItem }) {
  if (!item.result?.ok) return null;
  const r = subagentResult(item.tool, item.result.text);
  if (!r) return null;
  switch (r.kind) {
    case "started": {
      const input = (item.input ?? {}) as Record<string, unknown>;
      const description = typeof input.description === "string" && input.description ? input.description : "a subagent";
      return (
        <p class="subagent-result" data-subagent-id={r.id}>
          Started the subagent <ChildLink id={r.id} text={description} />{" "}
          <span class="muted small">
            {r.agent} · {r.mode}
          </span>
        </p>
      );
    }
    case "sent":
      return (
        <p class="subagent-result" data-subagent-id={r.id}>
          Sent to <ChildLink id={r.id} text="the subagent" /> <span class="muted small">({r.status})</span>
        </p>
      );
    case "views":
      return (
        <div class="subagent-result">
          {r.subagents.length === 0 ? (
            <p class="muted small">No subagents.</p>
          ) : (
            <ul class="subagent-views">
              {r.subagents.map((v) => (
                <View key={v.id} v={v} />
              ))}
            </ul>
          )}
          {r.finished === false && <p class="muted small">Some were still working when the wait ended.</p>}
        </div>
      );
  }
}
