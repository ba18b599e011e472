import { useObservable } from "../state/observable";
import { minuteTick } from "../state/clock";
import { relativeTime } from "../util/format";

/** "5 min ago", with the exact date and time on hover (and for screen readers, in datetime). */
export function Timestamp({ at }: { at: number }) {
  useObservable(minuteTick);
  if (!at) return null;
  const d = new Date(at);
  return (
    <time class="timestamp" dateTime={d.toISOString()} title={d.toLocaleString()}>
      {relativeTime(at)}
    </time>
  );
}
