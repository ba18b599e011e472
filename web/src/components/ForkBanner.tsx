import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Session } from "../api/types";
import { useObservable } from "../state/observable";
import { linkClick, sessionPath } from "../state/router";
import { sessions } from "../state/sessions";

/**
 * "Forked from <title> at message N", linking back. N counts the user's messages in the original
 * up to the one that was edited (read from the original's events, once).
 */
export function ForkBanner({ session }: { session: Session }) {
  const from = session.forked_from;
  const list = useObservable(sessions);
  const [fetched, setFetched] = useState<Session | null | "gone">(null);
  const [n, setN] = useState<number | null>(null);
  const parentId = from?.session ?? "";
  const seq = from?.seq ?? 0;
  const parent = list?.find((s) => s.id === parentId) ?? (fetched === "gone" ? null : fetched);

  useEffect(() => {
    if (!parentId) return;
    let live = true;
    if (!list?.some((s) => s.id === parentId)) {
      api.getSession(parentId).then(
        (s) => live && setFetched(s),
        () => live && setFetched("gone"),
      );
    }
    api.events(parentId, 0, Math.max(1, Math.min(seq, 5000))).then(
      (page) => {
        if (!live) return;
        const users = page.data.filter(
          (e) => e.type === "user_message" && e.seq <= seq && (e.origin == null || e.origin === "prompt" || e.origin === "command"),
        );
        setN(users.length);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [parentId, seq]);

  if (!from) return null;
  const title = parent ? parent.title || "Untitled session" : fetched === "gone" ? "a deleted session" : "another session";
  return (
    <p class="fork-banner" data-forked-from={parentId}>
      Forked from{" "}
      {fetched === "gone" ? (
        title
      ) : (
        <a href={sessionPath(parentId)} onClick={(e) => linkClick(e, sessionPath(parentId))}>
          {title}
        </a>
      )}
      {n !== null && n > 0 && <> at message {n}</>}
    </p>
  );
}
