import type { UserItem } from "../state/transcript";

export function UserMessage({ item }: { item: UserItem }) {
  const isCommand = item.text.startsWith("!");
  return (
    <div class={`msg msg-user${isCommand ? " msg-command" : ""}`} data-seq={item.seq}>
      <div class="msg-user-bubble">
        {isCommand ? <code class="user-command">{item.text}</code> : <p class="user-text">{item.text}</p>}
      </div>
    </div>
  );
}
