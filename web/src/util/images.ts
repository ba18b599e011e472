// Images the composer sends with a prompt: the server's limits checked here first, so a file that
// cannot go is refused with a plain reason before anything is sent. The type is read from the
// file's first bytes (what the server checks too), not from its name or the browser's guess.
import type { ImageInput, ImageType } from "../api/types";
import { formatBytes } from "./format";

/** At most this many images go with one prompt. */
export const MAX_IMAGES = 8;
/** Each image at most 5 MiB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/**
 * All of a prompt's images together: their base64 (a third larger) and the text must fit the
 * server's 48 MiB body limit.
 */
export const MAX_TOTAL_BYTES = 35 * 1024 * 1024;
/** What the file picker offers. */
export const IMAGE_ACCEPT = "image/png,image/jpeg,image/gif,image/webp";
/** The longest file name the server keeps. */
const MAX_NAME_CHARS = 200;

/** An image waiting in the composer. */
export interface DraftImage {
  /** Unique in the composer (a list key, and what removing names). */
  key: string;
  name: string;
  mediaType: ImageType;
  bytes: number;
  /** The file's bytes, base64 (no `data:` prefix). */
  data: string;
  /** A `blob:` URL of the file for its thumbnail (revoked when the image leaves). */
  url: string;
}

/** The image type the bytes start with, or null when they are none the server takes. */
export function sniffImageType(b: Uint8Array): ImageType | null {
  const starts = (sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}

/** Bytes as the API takes an image: base64, standard alphabet, padded. */
export function toBase64(b: Uint8Array): string {
  let s = "";
  // In slices: one String.fromCharCode call per byte of a 5 MiB file would overflow the stack.
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

let keys = 0;

/** The outcome of adding files: the images that fit, and a reason for each file that did not. */
export interface Added {
  images: DraftImage[];
  refused: string[];
}

/**
 * Read `files` into images to send after the `have` ones already waiting: each must be a PNG,
 * JPEG, GIF or WebP of at most 5 MiB, at most 8 in all and 35 MiB together.
 */
export async function readImages(files: readonly File[], have: readonly DraftImage[]): Promise<Added> {
  const images: DraftImage[] = [];
  const refused: string[] = [];
  let count = have.length;
  let total = have.reduce((n, i) => n + i.bytes, 0);
  for (const f of files) {
    const name = (f.name || "pasted image").slice(0, MAX_NAME_CHARS);
    if (count >= MAX_IMAGES) {
      refused.push(`${name} was not added: at most ${MAX_IMAGES} images go with one prompt.`);
      continue;
    }
    if (f.size > MAX_IMAGE_BYTES) {
      refused.push(`${name} is ${formatBytes(f.size)}: an image may be at most 5 MiB.`);
      continue;
    }
    if (total + f.size > MAX_TOTAL_BYTES) {
      refused.push(`${name} was not added: the images of one prompt may be at most 35 MiB together.`);
      continue;
    }
    const bytes = new Uint8Array(await f.arrayBuffer());
    const type = sniffImageType(bytes);
    if (!type) {
      refused.push(`${name} is not a PNG, JPEG, GIF or WebP image: only those go with a prompt.`);
      continue;
    }
    images.push({
      key: `img${++keys}`,
      name,
      mediaType: type,
      bytes: bytes.length,
      data: toBase64(bytes),
      url: URL.createObjectURL(new Blob([bytes], { type })),
    });
    count++;
    total += bytes.length;
  }
  return { images, refused };
}

/** An image kept in a draft (its name, type and base64 bytes), waiting in the composer again. */
export function restoredImage(kept: { name: string; mediaType: ImageType; data: string }): DraftImage {
  const raw = atob(kept.data);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return {
    key: `img${++keys}`,
    name: kept.name,
    mediaType: kept.mediaType,
    bytes: bytes.length,
    data: kept.data,
    url: URL.createObjectURL(new Blob([bytes], { type: kept.mediaType })),
  };
}

/** The images as the API takes them. */
export function imageInputs(images: readonly DraftImage[]): ImageInput[] {
  return images.map((i) => ({ media_type: i.mediaType, data: i.data, name: i.name }));
}

/**
 * The files pasted or dropped (null: none, the browser's own handling goes on); those that are
 * not images are refused by `readImages` with a reason.
 */
export function transferredFiles(dt: DataTransfer | null): File[] | null {
  if (!dt) return null;
  const files = Array.from(dt.files);
  return files.length > 0 ? files : null;
}
