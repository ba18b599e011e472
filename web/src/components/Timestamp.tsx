import { useEffect, useRef } from "preact/hooks";
import { useObservable } from "../state/observable";
import { minuteTick } from "../state/clock";
import { relativeTime } from "../util/format";

/** "5 min ago", with the exact date and time on hover (and for screen readers, in datetime). */
export function Timestamp({ at }: { at: number }) {
  useObservable(minuteTick);
  const ref = useRef<HTMLTimeElement>(null);
  // The exact time in the user's locale, set after the first paint: the first toLocaleString of
  // a page loads the locale's data, which would hold up opening a session by tens of ms.
  useEffect(() => {
    if (ref.current && at) ref.current.title = new Date(at).toLocaleString();
  }, [at]);
  if (!at) return null;
  return (
    <time class="timestamp" ref={ref} dateTime={new Date(at).toISOString()}>
      {relativeTime(at)}
    </time>
  );
}
