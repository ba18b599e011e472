import type { Citation, WebSource } from "../api/types";
import { isSafeLink } from "../render/markdown";
import type { WebSearchItem } from "../state/transcript";
import "../websearch.css";

/** A page's link, opened in a new tab; a URL that is not http(s) stays plain text. */
export function SourceLink({ url, title, hint }: { url: string; title?: string | null; hint?: string | null }) {
  const label = title?.trim() || url;
  if (!isSafeLink(url) || url.trim().toLowerCase().startsWith("mailto:")) {
    return <span class="source-url">{label}</span>;
  }
  let host = "";
  try {
    host = new URL(url.trim()).host;
  } catch {
    host = "";
  }
  return (
    <a href={url.trim()} target="_blank" rel="noopener noreferrer" title={hint ? `${url}\n“${hint}”` : url}>
      {label}
      {host && label !== url && <span class="source-host"> · {host}</span>}
    </a>
  );
}

/** One search the model's provider ran on its side: its query, and the pages it found. */
export function WebSearchNote({ item }: { item: WebSearchItem }) {
  const n = item.results.length;
  return (
    <div class={`web-search${item.error ? " failed" : ""}`} role="note" data-search-id={item.searchId}>
      <details>
        <summary>
          <span class="web-search-label">Searched the web</span>
          {item.query && <span class="web-search-query"> “{item.query}”</span>}
          <span class="web-search-meta">
            {" "}
            · {item.provider} · {item.error ? "failed" : `${n} page${n === 1 ? "" : "s"}`}
          </span>
        </summary>
        {item.error && <p class="web-search-error">{item.error}</p>}
        {n > 0 && <SourceList sources={item.results} />}
      </details>
    </div>
  );
}

function SourceList({ sources }: { sources: WebSource[] }) {
  return (
    <ol class="source-list">
      {sources.map((s, i) => (
        <li key={i}>
          <SourceLink url={s.url} title={s.title} />
        </li>
      ))}
    </ol>
  );
}

/** The pages an answer cites, each once (a page cited for several passages lists them all). */
export function Citations({ citations }: { citations: Citation[] }) {
  const pages: { url: string; title?: string | null; passages: string[] }[] = [];
  for (const c of citations) {
    let page = pages.find((p) => p.url === c.url);
    if (!page) pages.push((page = { url: c.url, title: c.title, passages: [] }));
    if (c.cited_text) page.passages.push(c.cited_text);
  }
  return (
    <div class="citations">
      <span class="citations-label">Sources</span>
      <ol class="source-list">
        {pages.map((p, i) => (
          <li key={i}>
            <SourceLink url={p.url} title={p.title} hint={p.passages[0]} />
          </li>
        ))}
      </ol>
    </div>
  );
}
