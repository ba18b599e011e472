import { useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import { useClearNetworkError } from "../state/reconnect";
import { ARIA_KEYS } from "../state/keys";
import type { Delivery, Session } from "../api/types";
import { useAction } from "../state/action";
import { useObservable } from "../state/observable";
import { queueOf, refreshQueue, saveQueueEdits } from "../state/queue";
import type { LocalPanel } from "../state/localCommands";
import { resolveSlash, type SlashEntry } from "../state/slash";
import { markStoppedByEsc } from "../state/steering";
import { joined, useShareTarget } from "../state/promptShare";
import type { RunState, UndoTarget } from "../state/transcript";
import { formatBytes } from "../util/format";
import { IMAGE_ACCEPT, imageInputs, transferredFiles } from "../util/images";
import { CancelDialog } from "./CancelDialog";
import { FormError } from "./FormError";
import { ImageDrafts, useImageDrafts } from "./ImageDrafts";
import { LocalReply } from "./LocalReply";
import { MentionList, useMentions } from "./MentionPicker";
import { ModeMenu } from "./ModeMenu";
import { SlashList, useSlashCommands } from "./SlashPicker";
import { usePromptKeys } from "./usePromptKeys";
import { useDraft } from "./useDraft";
import "../steer.css";

/** Which button sent: Send (into the working run, or as a denial's reason), or Send after (queued). */
type How = "send" | "after";

/** The session's oldest approval that waits: what Send denies, with the text as the reason. */
export interface WaitingApproval {
  id: string;
  tool: string;
}

export function Composer({
  sessionId,
  session,
  activeRun,
  cardWaiting,
  waitingApproval,
  undoTarget,
}: {
  sessionId: string;
  session: Session | null;
  activeRun: RunState | null;
  /** The run waits on an approval, a question or a plan: Esc is that card's, not a stop. */
  cardWaiting: boolean;
  /** An approval of this session waits: Send denies it and tells the agent the text. */
  waitingApproval: WaitingApproval | null;
  /** The message `/undo` reverts to. */
  undoTarget: () => UndoTarget | null;
}) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  /** What the last slash command did ("Switched to the plan agent."). */
  const [note, setNote] = useState<string | null>(null);
  /** What the last command answered here shows (`/help`, `/status`…), until closed or the next send. */
  const [panel, setPanel] = useState<LocalPanel | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const images = useImageDrafts();
  /** Files are dragged over the composer: it shows where they go. */
  const [dragging, setDragging] = useState(false);
  const queued = useObservable(queueOf(sessionId));
  // The cancel waiting for the user's answer about the queue (and whether Esc asked for it).
  const [asking, setAsking] = useState<{ runId: string; byEsc: boolean } | null>(null);
  /**
   * Replace the text and put the caret at `at` now, in the same task as the key or click that
   * asked for it: a caret placed later (a frame, an effect) lands in the wrong spot when the user
   * has typed a key in between.
   */
  const place = (next: string, at: number) => {
    const el = area.current;
    if (el) {
      el.value = next;
      el.setSelectionRange(at, at);
    }
    setText(next);
    setCaret(at);
  };
  const mentions = useMentions(sessionId, text, caret, (start, end, value) => {
    const next = text.slice(0, start) + value + text.slice(end);
    const at = start + value.length;
    place(next, at);
  });
  // The unsent text and images of this session, kept across sessions and reloads.
  const draft = useDraft(sessionId, text, images.list, (d) => {
    place(d.text, d.text.length);
    images.restore(d.images);
  });
  const listId = `mentions-${sessionId}`;
  const slashId = `commands-${sessionId}`;

  /** A picked command: run it now (Enter, a click) or complete its name to type after it (Tab). */
  const choose = (entry: SlashEntry, run: boolean) => {
    if (run && !entry.takesArguments) {
      void send(`/${entry.label}`);
      return;
    }
    const next = `/${entry.label}${entry.takesArguments ? " " : ""}`;
    place(next, next.length);
  };
  const slash = useSlashCommands(sessionId, text, choose);
  // A terminal's screen shared into the prompt: added after what is typed, nothing sent.
  useShareTarget(sessionId, (shared) => {
    const next = joined(area.current?.value ?? text, shared);
    place(next, next.length);
    area.current?.focus();
  });

  /** Add pasted, dropped or picked files: the reason each refused one could not go, and what was added. */
  const addFiles = async (files: File[]) => {
    try {
      const { added, refused } = await images.add(files);
      say(refused.length > 0 ? refused.join(" ") : null);
      if (added.length > 0) {
        const what = added.map((i) => `${i.name} (${formatBytes(i.bytes)})`).join(", ");
        setNote(`Added ${what}: sent with the next prompt.`);
      }
    } catch (e) {
      say(`The file could not be read: ${errorText(e)}`);
    }
  };

  const post = useAction(async (t: string, attached: typeof images.list, how: How) => {
    stop.setError(null);
    setNote(null);
    setPanel(null);
    // Cleared at once (a fast run may ask something before the response is back); a failed send
    // gives the text back unless something new was typed meanwhile.
    setText("");
    /** The images went in the request that failed (a command that failed sent nothing). */
    let withImages = false;
    try {
      // A slash command runs here, a template becomes its prompt; other text is sent as typed.
      const out = t.startsWith("/") && session ? await resolveSlash(session, t, { undoTarget, templates: slash.templates }) : { done: null, send: t };
      if (out.done) setNote(out.done);
      if (out.panel) setPanel(out.panel);
      if (out.send !== null) {
        // Typed words answer a waiting approval: denied, and the agent is told them instead.
        const deny = how === "send" && isPlain(t) ? waitingApproval : null;
        if (deny) {
          await api.decideApproval(deny.id, "deny", out.send);
          setNote(`Denied the ${deny.tool} call and told the agent your message.`);
          return;
        }
        // A command that sends nothing (/model, /goal …) leaves the images for the next prompt.
        withImages = attached.length > 0;
        await api.sendMessage(sessionId, out.send, imageInputs(attached), delivery(t, how));
        images.drop(attached);
        void refreshQueue(sessionId);
      }
    } catch (e) {
      setText((now) => (now ? now : t));
      // Nothing is lost: the text comes back, the images never left.
      throw withImages ? new Error(`Not sent (your text and images are kept): ${errorText(e)}`) : e;
    } finally {
      // Stay ready for the next prompt, unless a panel that arrived meanwhile (a question, a
      // plan) took the focus: never take it back from there.
      const a = document.activeElement;
      if (!a || a === document.body || a === area.current) area.current?.focus();
    }
  });
  const sending = post.busy;

  /**
   * How a message goes while a run works: Send steers it into the run (at its next tool call),
   * Send after queues it; a `!command` always waits. No run: the server's default (it starts one).
   */
  const delivery = (t: string, how: How): Delivery | undefined => {
    if (!activeRun && !waitingApproval) return undefined;
    return how === "send" && !t.startsWith("!") ? "steer" : "queue";
  };

  const send = (t: string = text, how: How = "send") => {
    if (sending) return;
    const attached = images.list;
    if (!t.trim()) {
      if (attached.length > 0) say("Write a prompt to go with the images: they cannot be sent alone.");
      return;
    }
    if (attached.length > 0 && t.startsWith("!")) {
      say("A !command cannot carry images: remove them, or send them with a prompt.");
      return;
    }
    if (attached.length > 0 && how === "send" && waitingApproval && isPlain(t)) {
      say("A denial cannot carry images: use Send after to send them once the run ends, or remove them.");
      return;
    }
    void post.run(t, attached, how);
  };

  const stop = useAction(async (runId: string, dropQueue: boolean, byEsc: boolean) => {
    // Kept, the queue's next message starts as the run stops: a queued message being edited is
    // saved first, so it starts with the new words (never the old ones). Not saved: no cancel.
    if (!dropQueue && !(await saveQueueEdits(sessionId))) {
      throw new Error("The queued message you are editing could not be saved, so the run was not cancelled. Save or close the edit, then cancel again.");
    }
    if (byEsc) markStoppedByEsc(runId);
    try {
      await api.cancelRun(runId, dropQueue);
    } finally {
      void refreshQueue(sessionId);
    }
  });
  const cancelling = stop.busy;
  const doCancel = stop.run;

  /**
   * The composer's one message line: what the last send (or the composer itself) said, unless a
   * cancel failed since.
   */
  const error = stop.error ?? post.error;
  const say = (message: string | null) => {
    stop.setError(null);
    post.setError(message);
  };
  useClearNetworkError(error, () => say(null));

  /** Cancel the active run; with messages queued behind it, ask first whether they go too. */
  const cancel = (byEsc = false) => {
    if (!activeRun || cancelling || asking) return;
    if (queued.length > 0) setAsking({ runId: activeRun.id, byEsc });
    else void doCancel(activeRun.id, false, byEsc);
  };

  // Esc stops a turn that streams or runs tools (and, from the prompt, one waiting on an approval);
  // a run waiting on a card leaves Esc to the card. Shift+Tab, ↑, `/` and Ctrl+Enter: see usePromptKeys.
  const promptKeys = usePromptKeys({
    sessionId,
    session,
    area,
    text,
    running: !!activeRun,
    cardWaiting,
    approval: waitingApproval,
    asking: !!asking,
    queued,
    stop: () => cancel(true),
    say,
  });

  const onKeyDown = (e: KeyboardEvent) => {
    if (slash.onKey(e)) return;
    if (mentions.onKey(e)) return;
    if (promptKeys(e)) return;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      void send();
    }
  };

  const isCommand = text.startsWith("!");
  /** What Send does now, said above the prompt (and read with it). */
  const modeId = `composer-mode-${sessionId}`;
  const mode =
    isCommand && (activeRun || waitingApproval) ? (
      "A !command waits for the run to end."
    ) : waitingApproval ? (
      <>
        Send will deny the waiting <b>{waitingApproval.tool}</b> call and tell the agent your message. Send after sends it once the run
        ends.
      </>
    ) : activeRun ? (
      "Send goes to the agent at its next step. Send after waits for the run to end."
    ) : null;
  const listOpen = slash.open ? slashId : mentions.open ? listId : null;
  const activeOption = slash.open ? slash.active : mentions.active;
  return (
    <form
      class={`composer${dragging ? " is-dropping" : ""}`}
      data-draft={draft}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setDragging(true);
      }}
      onDragLeave={(e) => {
        const to = e.relatedTarget as Node | null;
        if (!to || !(e.currentTarget as HTMLElement).contains(to)) setDragging(false);
      }}
      onDrop={(e) => {
        setDragging(false);
        const files = transferredFiles(e.dataTransfer);
        if (!files) return;
        e.preventDefault();
        void addFiles(files);
      }}
    >
      <FormError error={error} small />
      {panel && (
        <LocalReply
          panel={panel}
          onClose={() => {
            setPanel(null);
            area.current?.focus();
          }}
        />
      )}
      <p class="composer-note muted small" role="status">
        {note}
      </p>
      {mode && (
        <p class={`composer-mode small${waitingApproval && !isCommand ? " is-deny" : ""}`} id={modeId}>
          {mode}
        </p>
      )}
      <ImageDrafts images={images.list} onRemove={images.remove} onEmptied={() => area.current?.focus()} />
      <div class={`composer-box${isCommand ? " is-command" : ""}`}>
        {slash.open && <SlashList id={slashId} entries={slash.entries} active={slash.active} onPick={(e) => choose(e, true)} />}
        {!slash.open && mentions.open && (
          <MentionList
            id={listId}
            matches={mentions.matches}
            active={mentions.active}
            onPick={mentions.pick}
            answered={mentions.answered}
            stale={mentions.stale}
          />
        )}
        <textarea
          ref={area}
          name="prompt"
          rows={2}
          value={text}
          placeholder={
            session?.archived
              ? "This session is archived"
              : waitingApproval
                ? "Tell the agent what to do instead… (Enter denies the waiting call with it)"
                : "Ask the agent… (Enter to send, Shift+Enter for a new line, / for commands, !cmd runs a command)"
          }
          aria-label="Prompt"
          aria-keyshortcuts={ARIA_KEYS.prompt}
          aria-describedby={mode ? modeId : undefined}
          aria-autocomplete="list"
          aria-controls={listOpen ?? undefined}
          aria-activedescendant={listOpen ? `${listOpen}-${activeOption}` : undefined}
          onInput={(e) => {
            const el = e.target as HTMLTextAreaElement;
            setText(el.value);
            setNote(null);
            setCaret(el.selectionStart);
          }}
          onKeyUp={(e) => {
            if (e.key.startsWith("Arrow") || e.key === "Home" || e.key === "End") setCaret((e.target as HTMLTextAreaElement).selectionStart);
          }}
          onClick={(e) => setCaret((e.target as HTMLTextAreaElement).selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            // Text wins: cells copied from a spreadsheet come with a picture of them too.
            const files = e.clipboardData?.getData("text/plain") ? null : transferredFiles(e.clipboardData);
            if (!files) return;
            e.preventDefault();
            void addFiles(files);
          }}
        />
      </div>
      <div class="composer-bar">
        {session && <ModeMenu session={session} />}
        <button
          type="button"
          class="btn small ghost"
          onClick={() => picker.current?.click()}
          title="PNG, JPEG, GIF or WebP, at most 5 MiB each and 8 in all; or paste or drop them on the prompt"
        >
          Attach image
        </button>
        <input
          ref={picker}
          type="file"
          name="images"
          accept={IMAGE_ACCEPT}
          multiple
          hidden
          aria-label="Image files to attach"
          onChange={(e) => {
            const el = e.target as HTMLInputElement;
            const files = Array.from(el.files ?? []);
            el.value = "";
            if (files.length > 0) void addFiles(files);
          }}
        />
        {isCommand && <span class="chip chip-cmd">shell command</span>}
        <span class="spacer" />
        {activeRun && (
          <button type="button" class="btn danger" onClick={() => cancel()} disabled={cancelling} title="Esc">
            {cancelling ? "Cancelling…" : "Cancel run"}
          </button>
        )}
        {(activeRun || waitingApproval) && (
          <button
            type="button"
            class="btn"
            disabled={sending || !text.trim()}
            title="Send it as a new message once the current run ends"
            onClick={() => send(text, "after")}
          >
            {post.running?.[2] === "after" ? "Sending…" : "Send after"}
          </button>
        )}
        <button type="submit" class="btn primary" disabled={sending || (!text.trim() && images.list.length === 0)}>
          {post.running?.[2] === "send" ? "Sending…" : "Send"}
        </button>
      </div>
      {asking && (
        <CancelDialog
          queued={queued.length}
          onChoice={(c) => {
            const a = asking;
            setAsking(null);
            if (c !== null) void doCancel(a.runId, c === "drop", a.byEsc);
            area.current?.focus({ preventScroll: true });
          }}
        />
      )}
    </form>
  );
}

/** Words of the user's own (not a /command, not a !command): what a denial can carry as its reason. */
function isPlain(t: string): boolean {
  return !t.startsWith("/") && !t.startsWith("!");
}
