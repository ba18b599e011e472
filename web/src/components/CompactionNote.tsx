import type { CompactTrigger } from "../api/types";
import type { CompactionItem } from "../state/transcript";
import { tokens, usd } from "../util/format";
import { Markdown } from "./Markdown";

const WHY: Record<CompactTrigger, string> = {
  manual: "Conversation compacted by hand",
  auto: "Conversation compacted automatically as the context filled up",
  overflow: "Conversation compacted after the model refused a prompt that was too long",
};

/** The note's one line: why, how many messages, the tokens before and after, and the cost. */
export function compactionLine(item: CompactionItem): string {
  const range = `~${tokens(item.tokensBefore)} → ${tokens(item.tokensAfter)} tokens`;
  if (!item.summary && item.prunedOutputs > 0) {
    // Pruned only: no model call, nothing to pay.
    const p = item.prunedOutputs;
    return `Old tool outputs pruned as the context filled up: ${tokens(p)} output${p === 1 ? "" : "s"} cut to their first line · ${range}`;
  }
  const n = item.messagesSummarized;
  const parts = [`${tokens(n)} older message${n === 1 ? "" : "s"} summarised`, range];
  if (item.costUsd !== null) parts.push(usd(item.costUsd));
  return `${WHY[item.trigger] ?? "Conversation compacted"}: ${parts.join(" · ")}`;
}

/**
 * Older turns were summarised: from here on the model sees the summary and the latest turns (the
 * transcript above still shows everything). The summary is folded away, as Markdown.
 */
export function CompactionNote({ item }: { item: CompactionItem }) {
  return (
    <div class="system-note compaction-note" role="note" data-seq={item.seq} data-trigger={item.trigger}>
      <span class="system-note-label">{compactionLine(item)}</span>
      {item.summary && (
        <details class="system-note-details">
          <summary>
            Summary the agent goes on from, with{" "}
            {item.messagesKept === 1 ? "the latest message" : `the latest ${tokens(item.messagesKept)} messages`}
          </summary>
          <Markdown source={item.summary} final />
        </details>
      )}
    </div>
  );
}
