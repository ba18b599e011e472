import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { FileMatch } from "../api/types";

/** The `@word` being typed just before the caret, if any: where it starts and what follows `@`. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return null;
  return { start: caret - m[2].length - 1, query: m[2] };
}

/** `path` with the characters the query matched in `<mark>`. */
function Highlighted({ m }: { m: FileMatch }) {
  const hit = new Set(m.indices);
  const chars = [...m.path];
  const out: ComponentChildren[] = [];
  let run = "";
  let marked = false;
  const flush = (key: number) => {
    if (run) out.push(marked ? <mark key={key}>{run}</mark> : run);
    run = "";
  };
  chars.forEach((c, i) => {
    if (hit.has(i) !== marked) {
      flush(i);
      marked = !marked;
    }
    run += c;
  });
  flush(chars.length);
  return <>{out}</>;
}

/**
 * The `@` file picker of the composer: the workspace's files matching what follows `@`, ranked
 * by the server like fzf. The textarea keeps the focus; the composer passes its keys here first
 * (`onKey` returns true when the picker used the key).
 */
export function useMentions(sessionId: string, text: string, caret: number, insert: (start: number, end: number, value: string) => void) {
  const at = mentionAt(text, caret);
  const [matches, setMatches] = useState<FileMatch[]>([]);
  // The query `matches` answer: while a newer one is on its way the list stays (no flicker) but says it is stale.
  const [answered, setAnswered] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const asked = useRef(0);
  const query = at?.query ?? null;
  const start = at?.start ?? -1;

  useEffect(() => {
    if (query === null) {
      setMatches([]);
      return;
    }
    // The newest answer wins: an older one arriving late is dropped.
    const n = ++asked.current;
    api.files(sessionId, query).then(
      (r) => {
        if (n !== asked.current) return;
        setMatches(r.data);
        setAnswered(query);
        setActive(0);
      },
      () => {
        if (n === asked.current) {
          setMatches([]);
          setAnswered(query);
        }
      },
    );
  }, [sessionId, query]);

  const open = query !== null && dismissed !== start && matches.length > 0;
  const pick = (m: FileMatch) => {
    insert(start, caret, `@${m.path} `);
    setMatches([]);
  };
  const onKey = (e: KeyboardEvent): boolean => {
    if (!open) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const d = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a + d + matches.length) % matches.length);
    } else if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
      pick(matches[Math.min(active, matches.length - 1)]);
    } else if (e.key === "Escape") {
      setDismissed(start);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };
  return { open, matches, active, pick, onKey, answered, stale: answered !== query };
}

export function MentionList({
  id,
  matches,
  active,
  onPick,
  answered,
  stale,
}: {
  id: string;
  matches: FileMatch[];
  active: number;
  onPick: (m: FileMatch) => void;
  answered: string | null;
  stale: boolean;
}) {
  return (
    <ul class="mention-list" id={id} role="listbox" aria-label="Files" aria-busy={stale} data-query={answered ?? undefined}>
      {matches.map((m, i) => (
        <li
          key={m.path}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? "mention active" : "mention"}
          // Keep the textarea's focus (and caret) while picking with the mouse.
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onPick(m)}
        >
          <Highlighted m={m} />
        </li>
      ))}
    </ul>
  );
}
