import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { closedBlocks, type Headings, lexBlocks, renderBlockNodes, renderMarkdown, startHeadings } from "../render/markdown";
import { addCodeCopyButtons, onCodeCopyClick } from "./codeCopy";
import { enhanceDiagrams } from "./diagrams";
import { askConfirm } from "../state/confirm";

export function openExternal(e: MouseEvent): void {
  if (onCodeCopyClick(e)) return;
  const a = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute("href") ?? "";
  if (!/^(https?:|mailto:)/i.test(href)) return;
  void askConfirm({ title: "Open this link in a new tab?", body: href, confirm: "Open link" }).then((ok) => {
    if (ok) window.open(href, "_blank", "noopener,noreferrer");
  });
}

/** Whether two elements have the same attributes, with the same values. */
function sameAttributes(a: Element, b: Element): boolean {
  if (a.attributes.length !== b.attributes.length) return false;
  for (const { name, value } of a.attributes) if (b.getAttribute(name) !== value) return false;
  return true;
}

/**
 * How `old` becomes a node equal to `fresh` by text added at the end of its text nodes and nodes
 * added after its children: the changes, queued on `grow`; false when it cannot (nothing queued
 * then counts). The browser then lays out the text added, not a block built anew.
 */
function growth(old: Node, fresh: Node, grow: (() => void)[]): boolean {
  if (old instanceof Text) {
    if (!(fresh instanceof Text) || !fresh.data.startsWith(old.data)) return false;
    const added = fresh.data.slice(old.data.length);
    if (added) grow.push(() => old.appendData(added));
    return true;
  }
  if (!(old instanceof Element && fresh instanceof Element)) return old.isEqualNode(fresh);
  if (old.localName !== fresh.localName || !sameAttributes(old, fresh)) return false;
  const was = old.childNodes;
  const now = fresh.childNodes;
  if (now.length < was.length) return false;
  for (let i = 0; i < was.length; i++) if (!growth(was[i], now[i], grow)) return false;
  if (now.length > was.length) {
    const added = Array.from(now).slice(was.length);
    grow.push(() => old.append(...added));
  }
  return true;
}

/**
 * Make the root's child nodes from `from` on the `fresh` ones: each that is equal, or grew from
 * the one drawn, stays (grown); from the first that differs, they are replaced.
 */
function patchFrom(root: Element, from: number, fresh: Node[]): void {
  const drawn = root.childNodes;
  let i = 0;
  for (; i < fresh.length && from + i < drawn.length; i++) {
    const grow: (() => void)[] = [];
    if (!growth(drawn[from + i], fresh[i], grow)) break;
    for (const g of grow) g();
  }
  while (drawn.length > from + i) root.lastChild?.remove();
  root.append(...fresh.slice(i));
}

/**
 * What a streaming reply's DOM holds: its closed blocks (their source, how many of the root's
 * child nodes they are, where their headings left the ranks), then the rest as last drawn.
 */
interface Streamed {
  source: string;
  closedSource: string;
  closedNodes: number;
  headings: Headings;
}

/** A reference link's definition (`[name]: url`), which can change how text above it renders. */
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

/**
 * Draw a streaming reply's new source. Blocks that a blank line and another block have closed
 * are rendered once and stay; only the blocks after them are read and rendered again, and their
 * nodes are patched in (text that only grew is appended to the text drawn), so each update costs
 * the reply's last blocks, not all of it, in script and in layout.
 */
function drawStreaming(root: Element, was: Streamed | null, source: string): Streamed {
  let d = was && source.startsWith(was.closedSource) ? was : null;
  if (!d) {
    root.textContent = "";
    d = { source: "", closedSource: "", closedNodes: 0, headings: startHeadings() };
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
  const closed = n > 0 ? renderBlockNodes(blocks.slice(0, n), d.headings, true) : [];
  const open = renderBlockNodes(blocks.slice(n), d.headings, false);
  patchFrom(root, d.closedNodes, [...closed, ...open]);
  d.closedNodes += closed.length;
  if (n > 0) d.closedSource += closedSource;
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

  // Once the text is final (a streaming update schedules nothing after it is painted).
  const finalSource = final ? source : null;
  useEffect(() => {
    const el = ref.current;
    if (!el || finalSource === null) return;
    if (el.querySelector("pre code[class*='language-']")) {
      void import("../render/highlight").then((m) => m.highlightWithin(el));
    }
    enhanceDiagrams(el);
    addCodeCopyButtons(el);
  }, [finalSource]);

  return <div class="markdown" ref={ref} onClick={openExternal} />;
}
