// The inputs waiting behind a session's active run (`GET /api/sessions/{id}/queue`), read again
// after the user's own sends and whenever a run of the session starts or ends.
import { api } from "../api/client";
import type { QueueItem } from "../api/types";
import { Observable } from "./observable";

const queues = new Map<string, Observable<QueueItem[]>>();
const reads = new Map<string, number>();

export function queueOf(sessionId: string): Observable<QueueItem[]> {
  let q = queues.get(sessionId);
  if (!q) {
    q = new Observable<QueueItem[]>([]);
    queues.set(sessionId, q);
  }
  return q;
}

/** Read the queue again; a later read's answer wins over an earlier one still on its way. */
export async function refreshQueue(sessionId: string): Promise<void> {
  const mine = (reads.get(sessionId) ?? 0) + 1;
  reads.set(sessionId, mine);
  try {
    const r = await api.queue(sessionId);
    if (reads.get(sessionId) !== mine) return;
    const items = [...r.data].sort((a, b) => a.position - b.position);
    queueOf(sessionId).set(items);
  } catch {
    // An older server (no queue endpoint) or an outage: the list stays as it was.
  }
}

/**
 * Queue editors that are open, by session and queued message: each saves its unsaved words when
 * asked (resolving whether that went well; nothing to save is success). Before a cancel that keeps
 * the queue, the words being edited are saved: the next run must not start with the old text.
 */
const openEdits = new Map<string, Map<string, () => Promise<boolean>>>();

/** An open editor of a queued message; the returned function forgets it. */
export function registerQueueEdit(sessionId: string, itemId: string, save: () => Promise<boolean>): () => void {
  let edits = openEdits.get(sessionId);
  if (!edits) {
    edits = new Map();
    openEdits.set(sessionId, edits);
  }
  edits.set(itemId, save);
  return () => {
    if (edits.get(itemId) === save) edits.delete(itemId);
  };
}

/** Save what every open editor of the session's queue holds; resolves whether all of it was saved. */
export async function saveQueueEdits(sessionId: string): Promise<boolean> {
  const edits = [...(openEdits.get(sessionId)?.values() ?? [])];
  const saved = await Promise.all(edits.map((save) => save()));
  return saved.every(Boolean);
}
