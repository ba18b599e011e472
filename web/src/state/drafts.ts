// Per-session drafts: what the composer holds (text and attached images) and has not sent, kept in
// the browser's IndexedDB so that it survives moving to another session and reloading the page.
// A draft that is empty is deleted; sending clears it. Where IndexedDB is missing or fails (a
// private window, a full disk), the drafts are kept in memory instead: they still survive moving
// between sessions, not a reload.
import type { ImageType } from "../api/types";

/** An attached image as a draft keeps it: its bytes in base64, no `blob:` URL (made on restore). */
export interface DraftImageData {
  name: string;
  mediaType: ImageType;
  bytes: number;
  /** The file's bytes, base64 (no `data:` prefix). */
  data: string;
}

export interface Draft {
  text: string;
  images: DraftImageData[];
}

/** Where drafts are kept, by session id. */
export interface DraftStore {
  get(id: string): Promise<Draft | null>;
  put(id: string, draft: Draft): Promise<void>;
  delete(id: string): Promise<void>;
}

const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export function isEmptyDraft(d: Draft | null): boolean {
  return !d || (d.text === "" && d.images.length === 0);
}

/** A stored value read back as a draft, or null when it is not one (another version wrote it, say). */
export function parseDraft(v: unknown): Draft | null {
  if (typeof v !== "object" || v === null) return null;
  const { text, images } = v as { text?: unknown; images?: unknown };
  if (typeof text !== "string" || !Array.isArray(images)) return null;
  const ok = images.filter(
    (i): i is DraftImageData =>
      typeof i === "object" &&
      i !== null &&
      typeof i.name === "string" &&
      typeof i.data === "string" &&
      typeof i.bytes === "number" &&
      IMAGE_TYPES.includes(i.mediaType),
  );
  const draft = { text, images: ok.map(({ name, mediaType, bytes, data }) => ({ name, mediaType, bytes, data })) };
  return isEmptyDraft(draft) ? null : draft;
}

/** Drafts in memory only: gone with the page. */
export function memoryStore(): DraftStore {
  const kept = new Map<string, Draft>();
  return {
    get: async (id) => kept.get(id) ?? null,
    put: async (id, d) => void kept.set(id, d),
    delete: async (id) => void kept.delete(id),
  };
}

const OBJECT_STORE = "drafts";

/** Drafts in an IndexedDB database of their own (opened on first use). */
export function indexedDbStore(factory: IDBFactory, name = "tradewind-drafts"): DraftStore {
  let db: Promise<IDBDatabase> | null = null;
  const open = () =>
    (db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = factory.open(name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(OBJECT_STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error("IndexedDB could not be opened"));
      req.onblocked = () => reject(new Error("IndexedDB is blocked by another tab"));
    }));
  const run = async <T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const d = await open();
    return new Promise<T>((resolve, reject) => {
      const tx = d.transaction(OBJECT_STORE, mode);
      const req = op(tx.objectStore(OBJECT_STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? req.error ?? new Error("IndexedDB transaction failed"));
    });
  };
  return {
    get: async (id) => parseDraft(await run("readonly", (s) => s.get(id))),
    put: async (id, d) => void (await run("readwrite", (s) => s.put(d, id))),
    delete: async (id) => void (await run("readwrite", (s) => s.delete(id))),
  };
}

/**
 * The drafts of every session. A save is written at once, and while one write of a session's
 * draft is under way the next waits and writes the newest value only: typing fast costs one write
 * in flight at a time, and the last value always lands. Until it has, `load` answers from memory.
 * The first failure of the store turns it off: from then on drafts live in memory.
 */
export class Drafts {
  /** Values saved and not yet written (null: cleared), and, once the store failed, every draft. */
  private readonly latest = new Map<string, Draft | null>();
  /** Sessions whose latest value waits for its write. */
  private readonly dirty = new Set<string>();
  /** The write loop of a session, while one runs. */
  private readonly writing = new Map<string, Promise<void>>();
  private failed = false;

  constructor(private readonly store: DraftStore) {}

  /** The session's draft (null: none). */
  async load(id: string): Promise<Draft | null> {
    if (this.latest.has(id) || this.failed) return this.latest.get(id) ?? null;
    try {
      return await this.store.get(id);
    } catch {
      this.failed = true;
      return null;
    }
  }

  /** Keep `draft` as the session's draft (an empty one deletes it); resolves once it is stored. */
  save(id: string, draft: Draft): Promise<void> {
    const value = isEmptyDraft(draft) ? null : { text: draft.text, images: draft.images.map((i) => ({ ...i })) };
    this.latest.set(id, value);
    if (this.failed) return Promise.resolve();
    this.dirty.add(id);
    return this.writing.get(id) ?? this.write(id);
  }

  /** The session's draft is gone (sent, or the session deleted). */
  clear(id: string): Promise<void> {
    return this.save(id, { text: "", images: [] });
  }

  private write(id: string): Promise<void> {
    let done = false;
    const loop = (async () => {
      try {
        while (this.dirty.has(id) && !this.failed) {
          this.dirty.delete(id);
          const value = this.latest.get(id) ?? null;
          try {
            if (value) await this.store.put(id, value);
            else await this.store.delete(id);
          } catch {
            this.failed = true;
          }
        }
        // Stored: the store answers from now on (memory keeps every draft once it failed).
        if (!this.failed) this.latest.delete(id);
      } finally {
        // In the same step as the last check of `dirty`: a save that comes after starts a new loop.
        done = true;
        this.writing.delete(id);
      }
    })();
    if (!done) this.writing.set(id, loop);
    return loop;
  }
}

function defaultStore(): DraftStore {
  try {
    if (typeof indexedDB !== "undefined" && indexedDB) return indexedDbStore(indexedDB);
  } catch {
    // Reading `indexedDB` itself can throw where storage is blocked.
  }
  return memoryStore();
}

/** The app's drafts. */
export const drafts = new Drafts(defaultStore());
