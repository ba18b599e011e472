import { useEffect, useRef, useState } from "preact/hooks";
import { type Draft, drafts } from "../state/drafts";
import type { DraftImage } from "../util/images";

/** Where the composer's draft is: being read, being written, or stored as it shows. */
export type DraftState = "loading" | "saving" | "saved";

interface Shown {
  text: string;
  images: readonly DraftImage[];
}

/**
 * The composer's draft of this session (text and images), kept across sessions and reloads: read
 * when the composer opens and given to `restore` unless something was typed or attached meanwhile,
 * then saved on every change (an empty composer deletes it, so a sent prompt leaves none). Nothing
 * is saved before the read: the empty composer that opens must not wipe the stored draft. The
 * state says "saved" only while what is stored is what the composer shows.
 */
export function useDraft(sessionId: string, text: string, images: readonly DraftImage[], restore: (d: Draft) => void): DraftState {
  const [ready, setReady] = useState(false);
  /** What the last finished save stored (null: nothing known yet). */
  const [stored, setStored] = useState<Shown | null>(null);
  const now = useRef({ text, images, restore });
  now.current = { text, images, restore };
  const saves = useRef(0);

  useEffect(() => {
    let live = true;
    setReady(false);
    setStored(null);
    void drafts.load(sessionId).then((d) => {
      if (!live) return;
      const cur = now.current;
      const empty = cur.text === "" && cur.images.length === 0;
      if (d && empty) cur.restore(d);
      // No draft, nothing typed: the store already holds what shows.
      else if (!d && empty) setStored({ text: cur.text, images: cur.images });
      setReady(true);
    });
    return () => {
      live = false;
    };
  }, [sessionId]);

  useEffect(() => {
    if (!ready || (stored && stored.text === text && stored.images === images)) return;
    const mine = ++saves.current;
    const kept = images.map(({ name, mediaType, bytes, data }) => ({ name, mediaType, bytes, data }));
    void drafts.save(sessionId, { text, images: kept }).then(() => {
      if (mine === saves.current) setStored({ text, images });
    });
  }, [ready, text, images]);

  if (!ready) return "loading";
  return stored && stored.text === text && stored.images === images ? "saved" : "saving";
}
