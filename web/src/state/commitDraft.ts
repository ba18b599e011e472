// The commit panel's words from the agent: the commit message it is asked to draft, and its last
// answer (where a pull request's description starts). Loaded with the panel.
import { api } from "../api/client";
import { openTranscript } from "./sessions";

/** What the agent is asked when the user wants a commit message drafted. */
export const DRAFT_PROMPT = "Write a commit message for the changes in this session. Reply with the message only.";

/**
 * Ask the agent for a commit message: the prompt goes to the session like any other (it shows in
 * the conversation), and once its run has finished, its last answer is the message. `cancel`
 * stops the waiting (the run goes on).
 */
export function draftCommitMessage(session: string): { message: Promise<string>; cancel: () => void } {
  let stop: (() => void) | null = null;
  let cancelled = false;
  const message = api.sendMessage(session, DRAFT_PROMPT).then(
    ({ run_id }) =>
      new Promise<string>((resolve, reject) => {
        if (cancelled) return reject(new Error("cancelled"));
        const handle = openTranscript(session);
        const t = handle.transcript;
        const check = () => {
          const snap = t.snapshot();
          const ended = snap.items.some((it) => it.kind === "run_end" && it.runState.id === run_id);
          if (!ended) return;
          done();
          let text = "";
          for (const it of snap.items) if (it.kind === "assistant" && it.run === run_id && it.text.trim()) text = it.text;
          const msg = unfenced(text);
          if (msg) resolve(msg);
          else reject(new Error("The agent's answer held no message."));
        };
        const off = t.subscribe(check);
        const done = () => {
          off();
          handle.release();
        };
        stop = () => {
          done();
          reject(new Error("cancelled"));
        };
        check();
      }),
  );
  return {
    message,
    cancel: () => {
      cancelled = true;
      stop?.();
    },
  };
}

/** An answer without the code fence a model may wrap a message in. */
export function unfenced(text: string): string {
  const t = text.trim();
  const m = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n\1\s*$/.exec(t);
  return (m ? m[2] : t).trim();
}

/** The last answer the transcript holds (a pull request's description starts from it). */
export function lastAnswer(session: string): string {
  const handle = openTranscript(session);
  try {
    const items = handle.transcript.snapshot().items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === "assistant" && it.complete && it.text.trim()) return it.text.trim();
    }
    return "";
  } finally {
    handle.release();
  }
}
