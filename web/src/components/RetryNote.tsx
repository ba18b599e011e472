import { useEffect, useState } from "preact/hooks";
import type { RetryItem } from "../state/transcript";

/** "Provider busy — retry 2 of 3 in 4 s": one line per run, counting down while the wait lasts. */
export function RetryNote({ item }: { item: RetryItem }) {
  const until = item.at + item.delayMs;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (item.over) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [item.over, until]);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  const status = item.failed
    ? `gave up after attempt ${item.attempt} of ${item.maxAttempts}`
    : item.over
    ? `retried (attempt ${item.attempt} of ${item.maxAttempts})`
    : left > 0
      ? `retry ${item.attempt} of ${item.maxAttempts} in ${left} s`
      : `retrying (attempt ${item.attempt} of ${item.maxAttempts})…`;
  return (
    <div class={`retry-note${item.over ? " over" : ""}`} role="status" data-attempt={item.attempt}>
      <b>Provider unavailable</b> — {status}
      {item.reason && <span class="retry-reason">: {item.reason}</span>}
    </div>
  );
}
