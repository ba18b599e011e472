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
