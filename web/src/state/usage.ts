// What a session has used and spent (`GET /api/sessions/{id}/usage`), read once the session's
// transcript has its events and again whenever they say it changed (a model call, a compaction,
// a run's end, a new cap: the transcript's `usageMarks`) or the live connection comes back.
// No timer.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { SessionUsage } from "../api/types";
import { useOnReconnect } from "./reconnect";

/** The session's usage, newest answer first; null until the first answer (or on an older server). */
export function useSessionUsage(sessionId: string, marks: number | null): SessionUsage | null {
  const [usage, setUsage] = useState<SessionUsage | null>(null);
  const [again, setAgain] = useState(0);
  const asked = useRef(0);
  useOnReconnect(() => setAgain((n) => n + 1));

  useEffect(() => {
    if (marks === null) return;
    // An answer that arrives after a newer question was asked is dropped.
    const n = ++asked.current;
    api.sessionUsage(sessionId).then(
      (u) => n === asked.current && setUsage(u),
      () => undefined, // an older server has no usage endpoint: nothing is shown
    );
  }, [sessionId, marks, again]);

  return usage;
}
