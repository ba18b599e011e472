import type { AssistantItem } from "../state/transcript";
import { CopyButton } from "./CopyButton";
import { Markdown } from "./Markdown";
import { Reasoning } from "./Reasoning";
import { Timestamp } from "./Timestamp";
import { Citations } from "./WebSearchNote";

export function AssistantMessage({ item }: { item: AssistantItem }) {
  return (
    <div class={`msg msg-assistant${item.complete ? "" : " streaming"}`} data-message-id={item.messageId}>
      {item.reasoning && <Reasoning text={item.reasoning} streaming={!item.complete && !item.text} />}
      {item.text && <Markdown source={item.text} final={item.complete} />}
      {!item.complete && !item.text && !item.reasoning && <span class="typing" aria-label="Thinking" />}
      {item.citations.length > 0 && <Citations citations={item.citations} />}
      {(item.complete || item.text) && (
        <div class="msg-meta">
          <Timestamp at={item.at} />
          {item.complete && item.text && <CopyButton text={() => item.text} label="Copy message" />}
        </div>
      )}
    </div>
  );
}
