import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { renderMarkdown } from "../render/markdown";
import { addCodeCopyButtons, onCodeCopyClick } from "./codeCopy";
import { enhanceDiagrams } from "./diagrams";

export function openExternal(e: MouseEvent): void {
  if (onCodeCopyClick(e)) return;
  const a = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute("href") ?? "";
  if (!/^(https?:|mailto:)/i.test(href)) return;
  if (confirm(`Open this link in a new tab?\n\n${href}`)) {
    window.open(href, "_blank", "noopener,noreferrer");
  }
}

/** The closing tags (and the whitespace between them) that end a piece of HTML. */
const CLOSING_TAGS = /(?:<\/[a-z][a-z0-9]*>\s*)*$/;

/**
 * Text added at the end of a streaming reply's last text: `next` is `prev` with plain text
 * inserted before the closing tags (and the whitespace between them) that end `prev`. When the
 * DOM drawn from `prev` ends the same way, the text is appended to its last text node and true
 * is returned; the browser then lays out the added text instead of the whole reply built anew.
 */
export function appendInPlace(root: Element, prev: string, next: string): boolean {
  if (next.length <= prev.length) return false;
  const tail = CLOSING_TAGS.exec(prev)?.[0] ?? "";
  const head = prev.slice(0, prev.length - tail.length);
  if (head.endsWith(">") || !next.startsWith(head) || !next.endsWith(tail)) return false;
  const added = next.slice(head.length, next.length - tail.length);
  if (/[<>&]/.test(added)) return false;
  // Walk the closing tags from the last: each one's element, after the whitespace that follows it.
  const closings = [...tail.matchAll(/<\/([a-z][a-z0-9]*)>(\s*)/g)];
  let node: Node = root;
  for (let i = closings.length - 1; i >= 0; i--) {
    const [, tag, space] = closings[i];
    let child = node.lastChild;
    if (space) {
      if (!(child instanceof Text) || child.data !== space) return false;
      child = child.previousSibling;
    }
    if (!(child instanceof Element) || child.localName !== tag) return false;
    node = child;
  }
  const text = node.lastChild;
  if (!(text instanceof Text)) return false;
  text.appendData(added);
  return true;
}

/** Characters that start or end no markdown (no emphasis, link, code, autolink, entity or HTML). */
const PLAIN_WORDS = /^[A-Za-z0-9 ,;'"?]*[A-Za-z0-9]$/;
const PLAIN_WORD = /^[A-Za-z0-9,;'"?]+$/;

/**
 * The HTML of a streaming reply that grew by plain words (`next` is `prev` and those words),
 * without parsing it all again: the words go after the text that ends `prevHtml`, before its
 * closing tags. Null when that is not certain (the words or the word they follow hold anything
 * markdown could read, or the HTML does not end with that word): then it is parsed.
 */
export function grownHtml(prev: string, prevHtml: string, next: string): string | null {
  if (next.length <= prev.length || !next.startsWith(prev)) return null;
  const added = next.slice(prev.length);
  const lastWord = /\S*$/.exec(prev)?.[0] ?? "";
  if (!PLAIN_WORDS.test(added) || !PLAIN_WORD.test(lastWord)) return null;
  const tail = CLOSING_TAGS.exec(prevHtml)?.[0] ?? "";
  const head = prevHtml.slice(0, prevHtml.length - tail.length);
  if (!head.endsWith(lastWord)) return null;
  return head + added + tail;
}

export function Markdown({ source, final }: { source: string; final: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  /** What the DOM shows: its source and HTML, and whether it is still a streaming reply's. */
  const drawn = useRef<{ source: string; html: string; streaming: boolean } | null>(null);
  const html = useMemo(() => {
    const was = drawn.current;
    const grown = !final && was?.streaming ? grownHtml(was.source, was.html, source) : null;
    return grown ?? renderMarkdown(source);
  }, [source, final]);

  // The DOM is ours, not Preact's: a streaming reply grows in place where it can.
  useLayoutEffect(() => {
    const el = ref.current;
    const was = drawn.current;
    if (!el || (was?.html === html && was.streaming === !final)) return;
    if (!(was && was.streaming && !final && appendInPlace(el, was.html, html))) el.innerHTML = html;
    drawn.current = { source, html, streaming: !final };
  }, [html, final]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !final) return;
    if (el.querySelector("pre code[class*='language-']")) {
      void import("../render/highlight").then((m) => m.highlightWithin(el));
    }
    enhanceDiagrams(el);
    addCodeCopyButtons(el);
  }, [html, final]);

  return <div class="markdown" ref={ref} onClick={openExternal} />;
}
