import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { closedBlocks, type Headings, lexBlocks, renderBlocks, renderMarkdown, startHeadings } from "../render/markdown";
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

/**
 * What a streaming reply's DOM holds: its closed blocks (their source, how many of the root's
 * child nodes they are, where their headings left the ranks), then the HTML of the rest.
 */
interface Streamed {
  source: string;
  closedSource: string;
  closedNodes: number;
  headings: Headings;
  tailHtml: string;
}

/** A reference link's definition (`[name]: url`), which can change how text above it renders. */
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

/** Drop the root's child nodes after the first `keep`. */
function dropAfter(root: Element, keep: number): void {
  while (root.childNodes.length > keep) root.lastChild?.remove();
}

/** Sanitized HTML's nodes. */
function nodesOf(html: string): DocumentFragment {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t.content;
}

/** Append sanitized HTML's nodes to `root`; how many there were. */
function appendHtml(root: Element, html: string): number {
  const nodes = nodesOf(html);
  const n = nodes.childNodes.length;
  root.append(nodes);
  return n;
}

/**
 * Draw a streaming reply's new source. Blocks that a blank line and another block have closed
 * are rendered once and stay; only the blocks after them are read and rendered again (text that
 * only grew is appended to the last text node), so each update costs the reply's last blocks,
 * not all of it, in script and in layout.
 */
function drawStreaming(root: Element, was: Streamed | null, source: string): Streamed {
  let d = was && source.startsWith(was.closedSource) ? was : null;
  if (!d) {
    root.textContent = "";
    d = { source: "", closedSource: "", closedNodes: 0, headings: startHeadings(), tailHtml: "" };
  }
  const rest = source.slice(d.closedSource.length);
  const blocks = lexBlocks(rest);
  let n = closedBlocks(blocks);
  const closedSource = blocks
    .slice(0, n)
    .map((b) => b.raw)
    .join("");
  // The blocks' sources are the text (the lexer only rewrites line ends): else nothing closes.
  if (!rest.startsWith(closedSource)) n = 0;
  if (n > 0) {
    const html = renderBlocks(blocks.slice(0, n), d.headings, true);
    if (d.tailHtml.startsWith(html)) {
      // Drawn already, as the first blocks of the rest: they stay.
      d.closedNodes += nodesOf(html).childNodes.length;
    } else {
      dropAfter(root, d.closedNodes);
      d.closedNodes += appendHtml(root, html);
    }
    d.closedSource += closedSource;
    d.tailHtml = "";
  }
  const tail = renderBlocks(blocks.slice(n), d.headings, false);
  if (!(d.tailHtml && appendInPlace(root, d.tailHtml, tail))) {
    dropAfter(root, d.closedNodes);
    appendHtml(root, tail);
  }
  d.tailHtml = tail;
  d.source = source;
  return d;
}

export function Markdown({ source, final }: { source: string; final: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  /** What the DOM shows: a streaming reply's blocks, or (null) a finished text, `shown`. */
  const streamed = useRef<Streamed | null>(null);
  const shown = useRef<string | null>(null);

  // The DOM is ours, not Preact's: a streaming reply grows in place where it can.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (final) {
      if (shown.current === source && !streamed.current) return;
      const was = streamed.current;
      // A reply that streamed ends with its last blocks drawn like the rest (no long task to
      // draw it all again), unless a link definition could change a block drawn earlier.
      if (was && source.startsWith(was.closedSource) && !LINK_DEFINITION.test(source)) drawStreaming(el, was, source);
      else el.innerHTML = renderMarkdown(source);
      streamed.current = null;
      shown.current = source;
      return;
    }
    if (streamed.current?.source === source) return;
    streamed.current = drawStreaming(el, streamed.current, source);
    shown.current = null;
  }, [source, final]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !final) return;
    if (el.querySelector("pre code[class*='language-']")) {
      void import("../render/highlight").then((m) => m.highlightWithin(el));
    }
    enhanceDiagrams(el);
    addCodeCopyButtons(el);
  }, [source, final]);

  return <div class="markdown" ref={ref} onClick={openExternal} />;
}
