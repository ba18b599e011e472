import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { formatBytes } from "../util/format";
import type { DraftImageData } from "../state/drafts";
import { type DraftImage, readImages, restoredImage } from "../util/images";
import "../images.css";

/**
 * The images waiting to go with the prompt: a thumbnail each, its name and size, and a Remove
 * button. Removing one moves the focus to the next one's button (the previous one's at the end;
 * the prompt's when none is left).
 */
export function ImageDrafts({
  images,
  onRemove,
  onEmptied,
}: {
  images: readonly DraftImage[];
  onRemove: (key: string) => void;
  /** The last image was removed from here: the focus goes back to the prompt. */
  onEmptied: () => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  /** Where the removed image's button was: the focus goes to that place after the render. */
  const removedAt = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = removedAt.current;
    if (at === null) return;
    removedAt.current = null;
    const buttons = list.current?.querySelectorAll<HTMLButtonElement>("button.image-remove") ?? [];
    if (buttons.length === 0) onEmptied();
    else buttons[Math.min(at, buttons.length - 1)].focus();
  }, [images]);
  if (images.length === 0) return null;
  return (
    <ul class="image-drafts" ref={list} aria-label={`Images to send (${images.length})`}>
      {images.map((img, i) => (
        <li key={img.key} class="image-draft" data-name={img.name}>
          <img src={img.url} alt="" width={44} height={44} />
          <span class="image-draft-text">
            <span class="image-draft-name" title={img.name}>
              {img.name}
            </span>
            <span class="image-draft-size">{formatBytes(img.bytes)}</span>
          </span>
          <button
            type="button"
            class="btn small ghost image-remove"
            aria-label={`Remove image ${img.name}`}
            title="Remove"
            onClick={() => {
              removedAt.current = i;
              onRemove(img.key);
            }}
          >
            <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * The images waiting to go with the next prompt. Files are added one batch after another (so
 * the limits count what is already there); a thumbnail's `blob:` URL is revoked when its image
 * leaves, and all of them when the composer goes.
 */
export function useImageDrafts() {
  const [list, setList] = useState<DraftImage[]>([]);
  const latest = useRef<DraftImage[]>([]);
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const update = (next: DraftImage[]) => {
    latest.current = next;
    setList(next);
  };
  useEffect(() => () => latest.current.forEach((i) => URL.revokeObjectURL(i.url)), []);
  return {
    list,
    add(files: File[]): Promise<{ added: DraftImage[]; refused: string[] }> {
      const run = chain.current.then(async () => {
        const r = await readImages(files, latest.current);
        update([...latest.current, ...r.images]);
        return { added: r.images, refused: r.refused };
      });
      chain.current = run.catch(() => undefined);
      return run;
    },
    remove(key: string) {
      const gone = latest.current.find((i) => i.key === key);
      if (gone) URL.revokeObjectURL(gone.url);
      update(latest.current.filter((i) => i.key !== key));
    },
    /** Images kept in the session's draft, back in the composer (after any already there). */
    restore(kept: readonly DraftImageData[]) {
      update([...latest.current, ...kept.map(restoredImage)]);
    },
    /** Those sent: gone from the composer (any added meanwhile stay). */
    drop(sent: readonly DraftImage[]) {
      const keys = new Set(sent.map((i) => i.key));
      sent.forEach((i) => URL.revokeObjectURL(i.url));
      update(latest.current.filter((i) => !keys.has(i.key)));
    },
  };
}
