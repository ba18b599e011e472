import { useEffect } from "preact/hooks";
import { useObservable } from "../state/observable";
import { route } from "../state/router";
import { sessions, topLevel } from "../state/sessions";
import { attentionCount } from "../state/title";

/** Keeps the tab title in sync: "(n) needs you — Session title — Tradewind". */
export function TitleUpdater() {
  const list = useObservable(sessions);
  const local = useObservable(attentionCount);
  const r = useObservable(route);
  // A subagent that waits counts once, as its root session.
  const waiting = topLevel(list ?? []).filter((s) => s.status === "waiting" && !s.archived).length;
  const n = Math.max(waiting, local);
  const open = r.name === "session" ? list?.find((s) => s.id === r.id) : undefined;
  const name = r.name === "session" ? open?.title || (open ? "Untitled session" : "") : r.name === "settings" ? "Settings" : "";
  useEffect(() => {
    const parts = [n > 0 ? `(${n}) needs you` : "", name, "Tradewind"].filter(Boolean);
    document.title = parts.join(" — ");
  }, [n, name]);
  return null;
}
