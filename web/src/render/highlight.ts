// Syntax highlighting, loaded on demand (highlight.js core + common languages).
import { sanitizeSpans } from "./markdown";

type Hljs = typeof import("highlight.js")["default"];
let loading: Promise<Hljs> | null = null;

function load(): Promise<Hljs> {
  if (!loading) loading = import("highlight.js/lib/common").then((m) => m.default);
  return loading;
}

/** Highlight every `code[class^=language-]` under root (once each). */
export async function highlightWithin(root: HTMLElement): Promise<void> {
  const blocks = root.querySelectorAll<HTMLElement>("pre code[class*='language-']:not([data-hl])");
  if (blocks.length === 0) return;
  const hljs = await load();
  blocks.forEach((el) => {
    if (!el.isConnected || el.dataset.hl) return;
    const lang = /language-([a-z0-9_+#.-]+)/.exec(el.className)?.[1];
    if (!lang || lang === "mermaid" || !hljs.getLanguage(lang)) return;
    const html = hljs.highlight(el.textContent ?? "", { language: lang, ignoreIllegals: true }).value;
    el.replaceChildren(sanitizeSpans(html));
    el.dataset.hl = "1";
  });
}

/** Highlight one string; resolves to a fragment or null when the language is unknown. */
export async function highlightCode(code: string, lang: string): Promise<DocumentFragment | null> {
  const hljs = await load();
  if (!hljs.getLanguage(lang)) return null;
  return sanitizeSpans(hljs.highlight(code, { language: lang, ignoreIllegals: true }).value);
}
