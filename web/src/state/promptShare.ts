// Text another part of the session view puts into the prompt (a terminal's screen): the
// session's composer adds it to what it holds and takes the focus; with no composer on screen
// (the review is shown) it is added to the session's stored draft, which the composer restores
// when it opens. Nothing is sent: the agent sees it only once the user sends the prompt.
import { useEffect, useRef } from "preact/hooks";
import { drafts } from "./drafts";

type Taker = (text: string) => void;

const takers = new Map<string, Taker>();

/** Append `text` to the session's prompt (a blank line between it and what is there). */
export async function shareIntoPrompt(session: string, text: string): Promise<void> {
  const take = takers.get(session);
  if (take) {
    take(text);
    return;
  }
  const d = await drafts.load(session);
  await drafts.save(session, { text: joined(d?.text ?? "", text), images: d?.images ?? [] });
}

/** `text` after `before`, a blank line between them. */
export function joined(before: string, text: string): string {
  if (!before.trim()) return text;
  return `${before.replace(/\s+$/, "")}\n\n${text}`;
}

/** The composer of `session` takes shared text while it is mounted. */
export function useShareTarget(session: string, take: Taker): void {
  const latest = useRef(take);
  latest.current = take;
  useEffect(() => {
    const t: Taker = (text) => latest.current(text);
    takers.set(session, t);
    return () => {
      if (takers.get(session) === t) takers.delete(session);
    };
  }, [session]);
}
