import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { attachmentUrl } from "../api/client";
import type { ImageRef } from "../api/types";
import { formatBytes } from "../util/format";
import "../images.css";

function imageName(img: ImageRef, i: number): string {
  return img.name || `image ${i + 1}`;
}

/**
 * The images a prompt carried, as thumbnails (served by `GET /api/attachments/{id}`, same-origin
 * with the session cookie). Each is a button: it opens the image full size in a modal dialog,
 * which Esc or Close shuts, the focus back on the thumbnail.
 */
export function MessageImages({ images }: { images: readonly ImageRef[] }) {
  const [shown, setShown] = useState<number | null>(null);
  const list = useRef<HTMLUListElement>(null);
  /** The thumbnail whose dialog just closed: it takes the focus back once the dialog is gone. */
  const returnTo = useRef<number | null>(null);
  useLayoutEffect(() => {
    const i = returnTo.current;
    if (shown !== null || i === null) return;
    returnTo.current = null;
    list.current?.querySelectorAll<HTMLButtonElement>("button.msg-image")[i]?.focus({ preventScroll: true });
  }, [shown]);
  const close = () => {
    returnTo.current = shown;
    setShown(null);
  };
  return (
    <>
      <ul class="msg-images" ref={list} aria-label="Images sent">
        {images.map((img, i) => (
          <li key={`${i}:${img.id}`}>
            <button
              type="button"
              class="msg-image"
              data-id={img.id}
              aria-label={`Open image ${imageName(img, i)} (${formatBytes(img.bytes)})`}
              onClick={() => setShown(i)}
            >
              <img src={attachmentUrl(img.id)} alt="" width={96} height={96} loading="lazy" decoding="async" />
            </button>
          </li>
        ))}
      </ul>
      {shown !== null && images[shown] && <ImageDialog image={images[shown]} name={imageName(images[shown], shown)} onClose={close} />}
    </>
  );
}

/** One image full size in a native modal dialog: the focus stays inside, Esc closes it. */
function ImageDialog({ image, name, onClose }: { image: ImageRef; name: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const url = attachmentUrl(image.id);
  return (
    <dialog
      ref={ref}
      class="image-dialog"
      aria-label={`Image ${name}`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (e.target === ref.current) onClose();
      }}
    >
      <div class="image-dialog-body">
        <img src={url} alt={name} />
        <div class="row image-dialog-bar">
          <span class="image-dialog-name" title={name}>
            {name} <span class="muted small">({image.media_type.slice(6).toUpperCase()}, {formatBytes(image.bytes)})</span>
          </span>
          <span class="spacer" />
          <a class="btn small ghost" href={url} target="_blank" rel="noopener">
            Open in a new tab
          </a>
          <button type="button" class="btn small" onClick={onClose} autofocus>
            Close
          </button>
        </div>
      </div>
    </dialog>
  );
}
