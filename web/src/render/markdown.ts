// Model text → safe HTML. marked with raw HTML turned into text, then DOMPurify
// with a small allow-list. Links: only http(s) and mailto, opened in a new tab
// with noopener/noreferrer and the full URL as title; everything else becomes
// plain text. Images are never loaded: a placeholder names the blocked URL.
import DOMPurify, { type Config } from "dompurify";
import { Marked, type Tokens } from "marked";

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
const ALLOWED_ATTR = ["href", "title", "class", "start", "align", "type", "checked", "disabled"];

const purifier = DOMPurify();
// GFM task-list boxes keep their type (DOMPurify drops `type` from inputs otherwise).
purifier.addHook("uponSanitizeAttribute", (node, data) => {
  if (node.nodeName === "INPUT" && data.attrName === "type" && data.attrValue === "checkbox") data.forceKeepAttr = true;
});
purifier.addHook("afterSanitizeAttributes", (node) => {
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
      // Its accessible name (a task box has no label element).
      node.setAttribute("title", node.hasAttribute("checked") ? "Done" : "Not done");
    }
  }
});

const PURIFY_CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  KEEP_CONTENT: true,
  ADD_ATTR: ["target", "rel"],
} satisfies Config;

export function renderMarkdown(src: string): string {
  const html = marked.parse(src) as string;
  return purifier.sanitize(html, PURIFY_CONFIG);
}

/** Sanitize an HTML fragment produced by our own renderers (ANSI, highlight). */
export function sanitizeSpans(html: string, extraAttrs: string[] = []): DocumentFragment {
  return purifier.sanitize(html, {
    ALLOWED_TAGS: ["span"],
    ALLOWED_ATTR: ["class", ...extraAttrs],
    RETURN_DOM_FRAGMENT: true,
  });
}
