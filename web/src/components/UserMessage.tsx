import type { UserItem } from "../state/transcript";
import { CopyButton } from "./CopyButton";
import { Markdown } from "./Markdown";
import { Timestamp } from "./Timestamp";

export function UserMessage({ item }: { item: UserItem }) {
  // The wake-up's prompt repeats the wake-up note just above it: shown once, there.
  if (item.internal === "wakeup") return null;
  if (item.internal) return <InternalPromptNote item={item} />;
  const isCommand = item.text.startsWith("!");
  return (
    <div class={`msg msg-user${isCommand ? " msg-command" : ""}`} data-seq={item.seq}>
      <div class="msg-user-bubble">
        {isCommand ? <code class="user-command">{item.text}</code> : <p class="user-text">{item.text}</p>}
      </div>
      <div class="msg-meta">
        <Timestamp at={item.at} />
        <CopyButton text={() => item.text} label="Copy message" />
      </div>
    </div>
  );
}

const INTERNAL: Record<string, string> = {
  plan: "The approved plan was sent to the build agent.",
  resume: "The agent was asked to continue the run that stopped.",
};

/** A prompt the server wrote (plan implementation, resume): a small system note, the text folded. */
function InternalPromptNote({ item }: { item: UserItem }) {
  return (
    <div class="system-note" role="note" data-seq={item.seq} data-internal={item.internal}>
      <span class="system-note-label">{INTERNAL[item.internal ?? ""] ?? "The server sent the agent a prompt."}</span>
      <details class="system-note-details">
        <summary>What the agent was told</summary>
        <Markdown source={item.text} final />
      </details>
    </div>
  );
}
