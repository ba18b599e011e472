// Model text → safe HTML. marked with raw HTML turned into text, then DOMPurify
// with a small allow-list. Links: only http(s) and mailto, opened in a new tab
// with noopener/noreferrer and the full URL as title; everything else becomes
// plain text. Images are never loaded: a placeholder names the blocked URL.
import DOMPurify, { type Config } from "dompurify";
import { Marked, type Token, type Tokens } from "marked";

const SAFE_LINK = /^(https?:\/\/[^\s/]|mailto:)/i;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;",
  );
}

/** True for URLs we let the user open (absolute http(s) with a host, or mailto). */
export function isSafeLink(href: string): boolean {
  const h = href.trim();
  if (!SAFE_LINK.test(h)) return false;
  try {
    const u = new URL(h);
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:";
  } catch {
    return false;
  }
}

// Heading ranks of the current render: the Markdown's own levels, shifted so its first heading
// ranks at `base` and no heading skips a level (exposed as aria-level; the tags stay for styling).
let headingBase = 2;
let headingTop = 0;
let headingPrev = 1;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in model output is shown as text, never parsed.
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    image(token: Tokens.Image): string {
      const alt = token.text ? `${token.text} — ` : "";
      return (
        `<span class="blocked-image" title="${escapeHtml(token.href)}">` +
        `<span class="blocked-image-label">blocked external image</span> ` +
        `<span class="blocked-image-url">${escapeHtml(alt + token.href)}</span></span>`
      );
    },
    link(token: Tokens.Link): string {
      const inner = this.parser.parseInline(token.tokens);
      if (!isSafeLink(token.href)) {
        // Not clickable: the text, then the target as inert text.
        return `<span class="unsafe-link" title="link blocked">${inner} <code>${escapeHtml(token.href)}</code></span>`;
      }
      const href = escapeHtml(token.href.trim());
      return `<a href="${href}" title="${href}">${inner}</a>`;
    },
    heading(token: Tokens.Heading): string {
      const d = token.depth;
      if (headingTop === 0 || d < headingTop) headingTop = d;
      const level = Math.min(6, Math.max(headingBase, Math.min(headingPrev + 1, headingBase + d - headingTop)));
      headingPrev = level;
      return `<h${d} aria-level="${level}">${this.parser.parseInline(token.tokens)}</h${d}>\n`;
    },
    code(token: Tokens.Code): string {
      const lang = (token.lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
      const cls = /^[a-z0-9_+#.-]{1,32}$/.test(lang) ? ` class="language-${lang}"` : "";
      return `<pre class="code"><code${cls}>${escapeHtml(token.text)}</code></pre>`;
    },
  },
});

const ALLOWED_TAGS = [
  "a", "p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote",
  "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "thead", "tbody",
  "tr", "th", "td", "span", "div", "input", "sup", "sub", "kbd",
];
// aria-level comes from our heading renderer only (raw HTML in model text is escaped).
const ALLOWED_ATTR = ["href", "title", "class", "start", "align", "type", "checked", "disabled", "aria-level"];

/** Links open in a new tab behind a check; the only inputs kept are GFM task boxes, disabled. */
function safeLinksAndBoxes(node: Element): void {
  if (node.nodeName === "A") {
    const href = node.getAttribute("href") ?? "";
    if (!isSafeLink(href)) {
      node.removeAttribute("href");
    } else {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
      node.setAttribute("title", href);
    }
  }
  if (node.nodeName === "INPUT") {
    // GFM task-list boxes only.
    if (node.getAttribute("type") !== "checkbox") node.remove();
    else {
      node.setAttribute("disabled", "");
    }
  }
}

const PURIFY_CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  KEEP_CONTENT: true,
  ADD_ATTR: ["target", "rel"],
  // Attributes whose values are not URLs: without this they would have to match
  // ALLOWED_URI_REGEXP and be dropped (task boxes lost their type, headings their rank).
  ADD_URI_SAFE_ATTR: ["type", "checked", "disabled", "aria-level"],
} satisfies Config;

/**
 * A sanitizer with its configuration set once: DOMPurify reads a configuration passed with each
 * call again every time, a good part of what sanitizing a streaming reply costs.
 */
function purifierWith(config: Config): ReturnType<typeof DOMPurify> {
  const p = hookedPurifier();
  p.setConfig(config);
  return p;
}

function hookedPurifier(): ReturnType<typeof DOMPurify> {
  const p = DOMPurify();
  p.addHook("afterSanitizeAttributes", safeLinksAndBoxes);
  return p;
}
/** Made when first used (each costs a few ms as the page starts): markdown, nodes, spans. */
let toHtml: ReturnType<typeof DOMPurify> | null = null;
let inPlace: ReturnType<typeof DOMPurify> | null = null;
let spans: ReturnType<typeof DOMPurify> | null = null;
/** Where HTML is parsed to be sanitized as nodes (`sanitizedBox`). */
let inert: Document | null = null;

/** `headingRank`: the rank (aria-level) of the text's top heading, below the page's own headings. */
export function renderMarkdown(src: string, headingRank = 2): string {
  return sanitize(blocksHtml(lexBlocks(src), startHeadings(headingRank), false, headingRank));
}

function sanitize(html: string): string {
  if (!html.includes('type="checkbox"')) return (toHtml ??= purifierWith(PURIFY_CONFIG)).sanitize(html);
  return sanitizedBox(html).innerHTML;
}

/**
 * Sanitized HTML in a <div> of an inert document (one with no browsing context: nothing in it
 * loads or runs), its task boxes labelled. Parsed once and sanitized there in place.
 */
function sanitizedBox(html: string): HTMLDivElement {
  inert ??= document.implementation.createHTMLDocument("");
  const box = inert.createElement("div");
  box.innerHTML = html;
  (inPlace ??= purifierWith({ ...PURIFY_CONFIG, IN_PLACE: true })).sanitize(box);
  if (html.includes('type="checkbox"')) labelTaskBoxes(box);
  return box;
}

/** Where a text's heading ranks stand after the blocks rendered so far. */
export interface Headings {
  top: number;
  prev: number;
}

export function startHeadings(headingRank = 2): Headings {
  return { top: 0, prev: headingRank - 1 };
}

/** A text's top-level blocks (each with its `raw` source; together they are the text). */
export function lexBlocks(src: string): Token[] {
  return marked.lexer(src);
}

/**
 * Blocks from `lexBlocks` as safe nodes, their headings ranked on from `headings` (which move on
 * when `keep`: the blocks stay, and the next ones follow them): no document made per call, no
 * HTML written out and parsed again. The nodes are the page's once added to it.
 */
export function renderBlockNodes(blocks: Token[], headings: Headings, keep: boolean, headingRank = 2): Node[] {
  return Array.from(sanitizedBox(blocksHtml(blocks, headings, keep, headingRank)).childNodes);
}

function blocksHtml(blocks: Token[], headings: Headings, keep: boolean, headingRank: number): string {
  headingBase = headingRank;
  headingTop = headings.top;
  headingPrev = headings.prev;
  const html = marked.parser(blocks) as string;
  if (keep) {
    headings.top = headingTop;
    headings.prev = headingPrev;
  }
  return html;
}

/**
 * How many of the leading blocks of a text that is still being written are closed: text added
 * at its end cannot change how they render. A block is closed once a blank line and another
 * block follow it (whatever comes later starts a block of its own: a list cannot take more items
 * across a block that is not one of them, a fence or an HTML block still open is the last block).
 */
export function closedBlocks(blocks: Token[]): number {
  let closed = 0;
  let blank = false;
  let open = -1;
  for (let i = 0; i < blocks.length; i++) {
    if (blocks[i].type === "space") {
      blank = true;
      continue;
    }
    if (open >= 0 && blank) closed = i;
    open = i;
    blank = false;
  }
  return closed;
}

/**
 * Samples that run marked's block rules, its inline rules and the sanitizer once each. The first
 * text a page renders would otherwise pay for compiling their regular expressions (tens of ms,
 * one long task on a slow machine); each sample is small enough to be one short task.
 */
const WARM_UP = ["a", "*b* **c** `d` ~~e~~ [f](https://example.com) <g> www.example.com", "- h\n1. i\n\n> j\n\n| k | l |\n|---|---|\n| m | n |\n\n# o\n\n```\np\n```"];

/** Render the warm-up samples one at a time while the page is idle (the first message then renders at once). */
export function warmMarkdown(): void {
  const idle = (fn: () => void) =>
    typeof requestIdleCallback === "function" ? requestIdleCallback(fn, { timeout: 5000 }) : setTimeout(fn, 500);
  let i = 0;
  const next = () => {
    renderMarkdown(WARM_UP[i++]);
    if (i < WARM_UP.length) idle(next);
  };
  idle(next);
}

const BLOCK = new Set(["UL", "OL", "P", "PRE", "BLOCKQUOTE", "TABLE", "DIV", "H1", "H2", "H3", "H4", "H5", "H6", "HR"]);

/** A task box and the text after it become one <label>: the box's visible name. */
function labelTaskBoxes(root: Element): void {
  for (const box of root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) {
    const label = root.ownerDocument.createElement("label");
    label.className = "task-item";
    box.before(label);
    let n: ChildNode | null = box;
    while (n && !(n instanceof HTMLElement && BLOCK.has(n.tagName))) {
      const next: ChildNode | null = n.nextSibling;
      label.append(n);
      n = next;
    }
  }
}

/** Sanitize an HTML fragment produced by our own renderers (ANSI, highlight). */
export function sanitizeSpans(html: string, extraAttrs: string[] = []): DocumentFragment {
  // Configured per call: the attributes kept vary.
  spans ??= hookedPurifier();
  return spans.sanitize(html, {
    ALLOWED_TAGS: ["span"],
    ALLOWED_ATTR: ["class", ...extraAttrs],
    RETURN_DOM_FRAGMENT: true,
  });
}
