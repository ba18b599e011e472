import { useAction } from "../state/action";
import { openModelPicker } from "../state/providers";
import { regenerate } from "../state/revert";
import type { AssistantItem, UserItem } from "../state/transcript";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { Markdown } from "./Markdown";
import { Reasoning } from "./Reasoning";
import { Timestamp } from "./Timestamp";
import { Citations } from "./WebSearchNote";
import "../undo.css";

export function AssistantMessage({ item }: { item: AssistantItem }) {
  // Once the rewind's event is in, this answer is taken back and offers it no more.
  const again = useAction((prompt: UserItem) => regenerate(prompt.sessionId, prompt));
  const prompt = item.regenerate;
  // A turn of tool calls only: no words to date, so no line of its own (its cards follow).
  const bare = item.complete && !item.text && !item.reasoning && item.citations.length === 0;
  if (bare && !prompt) return null;
  return (
    <div class={`msg msg-assistant${item.complete ? "" : " streaming"}`} data-message-id={item.messageId}>
      {item.reasoning && <Reasoning text={item.reasoning} streaming={!item.complete && !item.text} />}
      {item.text && <Markdown source={item.text} final={item.complete} />}
      {!item.complete && !item.text && !item.reasoning && <span class="typing" aria-label="Thinking" />}
      {item.citations.length > 0 && <Citations citations={item.citations} />}
      {(item.text || (item.complete && prompt)) && (
        <div class="msg-meta">
          {item.text && <Timestamp at={item.at} />}
          {/* Shown on hover or focus, over the line: no room taken while hidden. */}
          <span class="msg-actions">
            {item.complete && item.text && <CopyButton text={() => item.text} label="Copy message" />}
            {prompt && (
              <>
                <button
                  type="button"
                  class="btn small ghost msg-regenerate"
                  disabled={again.busy}
                  title="Take this answer back and send your last message again"
                  onClick={() => void again.run(prompt)}
                >
                  {again.busy ? "Regenerating…" : "Regenerate"}
                </button>
                <button
                  type="button"
                  class="btn small ghost msg-regenerate"
                  disabled={again.busy}
                  title="Pick a model for this session, then take this answer back and send your last message again"
                  onClick={() => openModelPicker(prompt.sessionId, () => void again.run(prompt))}
                >
                  Regenerate with another model…
                </button>
              </>
            )}
          </span>
        </div>
      )}
      <FormError error={again.error} small />
    </div>
  );
}
