import { useEffect } from "preact/hooks";
import { useObservable } from "../state/observable";
import { sessions } from "../state/sessions";
import { attentionCount } from "../state/title";

/** Keeps the tab title in sync: "(n) needs you — Tradewind". */
export function TitleUpdater() {
  const list = useObservable(sessions);
  const local = useObservable(attentionCount);
  const waiting = (list ?? []).filter((s) => s.status === "waiting" && !s.archived).length;
  const n = Math.max(waiting, local);
  useEffect(() => {
    document.title = n > 0 ? `(${n}) needs you — Tradewind` : "Tradewind";
  }, [n]);
  return null;
}
