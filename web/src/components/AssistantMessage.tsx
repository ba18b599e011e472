import type { AssistantItem } from "../state/transcript";
import { Markdown } from "./Markdown";
import { Reasoning } from "./Reasoning";

export function AssistantMessage({ item }: { item: AssistantItem }) {
  return (
    <div class={`msg msg-assistant${item.complete ? "" : " streaming"}`} data-message-id={item.messageId}>
      {item.reasoning && <Reasoning text={item.reasoning} streaming={!item.complete && !item.text} />}
      {item.text && <Markdown source={item.text} final={item.complete} />}
      {!item.complete && !item.text && !item.reasoning && <span class="typing" aria-label="Thinking" />}
    </div>
  );
}
