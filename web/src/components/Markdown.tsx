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

/**
 * Text added at the end of a streaming reply's last text: `next` is `prev` with plain text
 * inserted before the closing tags (and the whitespace between them) that end `prev`. When the
 * DOM drawn from `prev` ends the same way, the text is appended to its last text node and true
 * is returned; the browser then lays out the added text instead of the whole reply built anew.
 */
export function appendInPlace(root: Element, prev: string, next: string): boolean {
  if (next.length <= prev.length) return false;
  const tail = /(?:<\/[a-z][a-z0-9]*>\s*)*$/.exec(prev)?.[0] ?? "";
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

export function Markdown({ source, final }: { source: string; final: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const html = useMemo(() => renderMarkdown(source), [source]);
  /** The HTML the DOM shows, and whether it is still the streaming reply's (nothing added to it). */
  const drawn = useRef<{ html: string; streaming: boolean } | null>(null);

  // The DOM is ours, not Preact's: a streaming reply grows in place where it can.
  useLayoutEffect(() => {
    const el = ref.current;
    const was = drawn.current;
    if (!el || (was?.html === html && was.streaming === !final)) return;
    if (!(was && was.streaming && !final && appendInPlace(el, was.html, html))) el.innerHTML = html;
    drawn.current = { html, streaming: !final };
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
