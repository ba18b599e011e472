import type { ComponentChildren } from "preact";
import type { SearchHit } from "../api/types";
import { HIT_KIND } from "../state/search";
import { plainSnippet } from "../util/plainSnippet";
import { Timestamp } from "./Timestamp";

/**
 * The snippet as plain text (the stored Markdown's marks dropped) with the matched words in
 * `<mark>` (`highlights`: [start, end) in UTF-16 units of the stored text).
 */
export function Snippet({ text: stored, highlights: found }: { text: string; highlights: number[][] }) {
  const { text, highlights } = plainSnippet(stored, found);
  const spans = highlights
    .filter((h) => h.length >= 2 && h[0] < h[1])
    .map(([a, b]) => [Math.max(0, a), Math.min(text.length, b)] as const)
    .sort((x, y) => x[0] - y[0]);
  const out: ComponentChildren[] = [];
  let pos = 0;
  for (const [a, b] of spans) {
    if (a < pos || a >= b) continue; // overlapping or out of range: the first one wins
    if (a > pos) out.push(text.slice(pos, a));
    out.push(<mark key={a}>{text.slice(a, b)}</mark>);
    pos = b;
  }
  out.push(text.slice(pos));
  return <span class="search-snippet">{out}</span>;
}

/** One hit in the results list: its session, what kind of event, when, and the passage. */
export function SearchHitOption({
  id,
  hit,
  active,
  onPick,
  onHover,
}: {
  id: string;
  hit: SearchHit;
  active: boolean;
  onPick: () => void;
  onHover: () => void;
}) {
  return (
    <li
      id={id}
      role="option"
      aria-selected={active}
      class={`search-hit${active ? " active" : ""}`}
      data-kind={hit.kind}
      data-session-id={hit.session_id}
      data-seq={hit.seq}
      // The search field keeps the focus while picking with the mouse.
      onMouseDown={(e) => e.preventDefault()}
      onMouseMove={onHover}
      onClick={onPick}
    >
      <span class="search-hit-top">
        <span class="search-hit-title">{hit.title || "Untitled session"}</span>{" "}
        <span class="search-hit-kind">{HIT_KIND[hit.kind] ?? hit.kind}</span>{" "}
        <Timestamp at={hit.created_at} />
      </span>{" "}
      <Snippet text={hit.snippet} highlights={hit.highlights} />
    </li>
  );
}
