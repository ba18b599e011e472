import { useState } from "preact/hooks";
import { api } from "../api/client";
import { useAction } from "../state/action";
import { startRevert } from "../state/revert";
import { navigate, sessionPath } from "../state/router";
import { upsertSession } from "../state/sessions";
import type { UserItem } from "../state/transcript";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { Markdown } from "./Markdown";
import { MessageImages } from "./MessageImages";
import { Timestamp } from "./Timestamp";
import "../steer.css";

export function UserMessage({ item }: { item: UserItem }) {
  // The wake-up's prompt repeats the wake-up note just above it: shown once, there.
  if (item.internal === "wakeup") return null;
  if (item.internal) return <InternalPromptNote item={item} />;
  return <TypedMessage item={item} />;
}

function TypedMessage({ item }: { item: UserItem }) {
  const [editing, setEditing] = useState(false);
  const isCommand = item.text.startsWith("!");
  // Only a build run records the files before it; a turn already taken back is not rewound again.
  const revertable = item.agent !== "plan" && !item.takenBack && item.messageId !== "";
  return (
    <div class={`msg msg-user${isCommand ? " msg-command" : ""}`} data-seq={item.seq}>
      {editing ? (
        <ResendEditor item={item} onClose={() => setEditing(false)} />
      ) : (
        <div class="msg-user-bubble">
          {item.images.length > 0 && <MessageImages images={item.images} />}
          {isCommand ? <code class="user-command">{item.text}</code> : <p class="user-text">{item.text}</p>}
        </div>
      )}
      <div class="msg-meta">
        {item.steeredFrom && (
          <span class="chip msg-steered" title="Sent while the agent worked: it read this after the tool calls it was making">
            sent mid-turn
          </span>
        )}
        <Timestamp at={item.at} />
        {item.editable && !editing && (
          <button type="button" class="btn small ghost msg-edit" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {/* Shown on hover or focus, over the line: no room taken while hidden. */}
        <span class="msg-actions">
          <CopyButton text={() => item.text} label="Copy message" />
          {revertable && !editing && (
            <button
              type="button"
              class="btn small ghost msg-revert"
              title="Take the conversation, the files or both back to how they were before this message"
              onClick={() => startRevert(item.sessionId, { messageId: item.messageId, text: item.text })}
            >
              Rewind to here
            </button>
          )}
        </span>
      </div>
    </div>
  );
}

/**
 * Edit and resend: the conversation up to this message goes on in a new session (a fork) with the
 * edited text; this session stays as it was.
 */
function ResendEditor({ item, onClose }: { item: UserItem; onClose: () => void }) {
  const [text, setText] = useState(item.text);
  // The app moves to the new session: busy until then.
  const fork = useAction(
    async () => {
      const f = await api.fork(item.sessionId, item.seq, text);
      upsertSession(f.session);
      navigate(sessionPath(f.session.id));
    },
    { stayBusy: true },
  );
  const busy = fork.busy;
  const send = () => {
    if (text.trim()) void fork.run();
  };
  return (
    <form
      class="resend-editor"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        aria-label="Edited message"
        rows={3}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
            e.preventDefault();
            send();
          }
        }}
        autofocus
      />
      <p class="muted small">
        Sends the edited message in a new session that holds the conversation up to here
        {item.images.length > 0 ? ", without its images." : "."}
      </p>
      <div class="row">
        <button type="submit" class="btn small primary" disabled={busy || !text.trim()}>
          {busy ? "Sending…" : "Send as a new session"}
        </button>
        <button type="button" class="btn small ghost" onClick={onClose}>
          Cancel
        </button>
      </div>
      <FormError error={fork.error} small />
    </form>
  );
}

const INTERNAL: Record<string, string> = {
  plan: "The approved plan was sent to the build agent.",
  resume: "The agent was asked to continue the run that stopped.",
};

function noteLabel(item: UserItem): string {
  if (item.internal === "goal") return item.goalTurn !== null ? `Goal turn ${item.goalTurn}` : "Goal turn";
  return INTERNAL[item.internal ?? ""] ?? "The server sent the agent a prompt.";
}

/**
 * A prompt the server wrote (plan implementation, resume, a turn towards the goal): a small
 * system note, the text folded.
 */
function InternalPromptNote({ item }: { item: UserItem }) {
  const goal = item.internal === "goal";
  return (
    <div class={goal ? "system-note goal-turn" : "system-note"} role="note" data-seq={item.seq} data-internal={item.internal}>
      <span class="system-note-label">{noteLabel(item)}</span>
      <details class="system-note-details">
        <summary>What the agent was told</summary>
        <Markdown source={item.text} final />
      </details>
    </div>
  );
}
