import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { SearchHit } from "../api/types";
import { useObservable } from "../state/observable";
import { closeSearch, openHit, searchDialog } from "../state/search";
import { SearchHitOption } from "./SearchHitOption";
import "../search.css";

/** Wait this long after the last key before asking (ms). */
const DEBOUNCE_MS = 150;
/** The server's limit on a query's length. */
const MAX_QUERY = 200;
/** Hits asked for. */
const LIMIT = 20;

/** The search dialog, while open (each opening starts anew, with the words it was opened with). */
export function SearchDialog() {
  const open = useObservable(searchDialog);
  if (!open) return null;
  return <SearchBox key={open.n} initial={open.query} />;
}

interface Answer {
  /** The words these hits are for. */
  query: string;
  hits: SearchHit[] | null;
  error: string | null;
}

function failure(e: unknown): string {
  if (e instanceof ApiError && e.status === 422) return `Use at most ${MAX_QUERY} characters.`;
  return `The search failed: ${errorText(e)}`;
}

/**
 * Search every session's prompts, answers and tool calls and output. A modal dialog: the field is
 * a combobox whose list holds the hits (arrows move, Enter opens, Esc closes); each key asks
 * again after a pause, and an answer to older words is dropped (its request is cancelled).
 */
function SearchBox({ initial }: { initial: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(initial);
  const [answer, setAnswer] = useState<Answer>({ query: "", hits: null, error: null });
  const [active, setActive] = useState(0);
  const query = text.trim();

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    const el = input.current;
    // The caret after the words it was opened with.
    el?.setSelectionRange(el.value.length, el.value.length);
    return () => d?.close();
  }, []);

  useEffect(() => {
    if (!query) {
      setAnswer({ query: "", hits: null, error: null });
      return;
    }
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      api.search(query, ctl.signal, LIMIT).then(
        (r) => {
          setAnswer({ query, hits: r.data, error: null });
          setActive(0);
        },
        (e) => {
          if (!ctl.signal.aborted) setAnswer({ query, hits: null, error: failure(e) });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [query]);

  const hits = answer.hits ?? [];
  const current = query !== "" && answer.query === query;
  const searching = query !== "" && !current;
  const listed = query !== "" && hits.length > 0;
  const at = Math.min(active, hits.length - 1);

  // Keep the highlighted hit in sight as the arrows move it.
  const scrollActive = () => ref.current?.querySelector(".search-hit.active")?.scrollIntoView({ block: "nearest" });
  const onKey = (e: KeyboardEvent) => {
    if (e.isComposing || !listed) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const d = e.key === "ArrowDown" ? 1 : -1;
      setActive((at + d + hits.length) % hits.length);
      requestAnimationFrame(scrollActive);
    } else if (e.key === "Enter") {
      e.preventDefault();
      openHit(hits[at]);
    }
  };

  let status: string;
  if (!query) status = "Type words to find in the prompts, answers and tool output of every session.";
  else if (answer.error && current) status = answer.error;
  else if (searching && hits.length === 0) status = "Searching…";
  else if (current && hits.length === 0) status = `No matches for “${query}”. Every word must appear; the last one may be the start of a word.`;
  else status = `${hits.length === LIMIT ? `The ${LIMIT} best matches` : `${hits.length} match${hits.length === 1 ? "" : "es"}`}${searching ? " (searching…)" : ""}`;

  return (
    <dialog
      ref={ref}
      class="search-dialog"
      aria-labelledby="search-dialog-title"
      onClose={closeSearch}
      onClick={(e) => e.target === ref.current && closeSearch()}
    >
      <div class="search-inner">
        <h2 id="search-dialog-title">Search sessions</h2>
        <input
          ref={input}
          type="text"
          enterKeyHint="search"
          autoComplete="off"
          class="search-input"
          role="combobox"
          aria-label="Words to find"
          aria-expanded={listed}
          aria-controls="search-hits"
          aria-autocomplete="list"
          aria-activedescendant={listed ? `search-hit-${at}` : undefined}
          aria-describedby="search-status"
          maxLength={MAX_QUERY}
          placeholder="Find in prompts, answers and tool output…"
          value={text}
          autofocus
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
          onKeyDown={onKey}
        />
        <p id="search-status" class={`search-status small${answer.error && current ? " error" : " muted"}`} role="status">
          {status}
        </p>
        <ul id="search-hits" class="search-hits" role="listbox" aria-label="Matches" hidden={!listed}>
          {listed &&
            hits.map((h, i) => (
              <SearchHitOption
                key={`${h.session_id}:${h.seq}`}
                id={`search-hit-${i}`}
                hit={h}
                active={i === at}
                onPick={() => openHit(h)}
                onHover={() => i !== at && setActive(i)}
              />
            ))}
        </ul>
        <div class="row search-foot">
          <span class="muted small">↑ ↓ to choose, Enter to open, Esc to close</span>
          <span class="spacer" />
          <button type="button" class="btn small ghost" onClick={closeSearch}>
            Close
          </button>
        </div>
      </div>
    </dialog>
  );
}
