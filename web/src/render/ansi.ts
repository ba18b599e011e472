// Terminal text with ANSI colours → DOM, safely. ansi_up escapes the text and
// makes no links; its inline style attributes (blocked by our CSP) are renamed
// before parsing and turned into classes / CSSOM properties afterwards.
import { AnsiUp } from "ansi_up";
import { sanitizeSpans } from "./markdown";

const STYLE_ATTR = /<span style="([^"]*)"/g;
const RGB = /^rgb\((\d{1,3}),(\d{1,3}),(\d{1,3})\)$/;

function converter(): AnsiUp {
  const au = new AnsiUp();
  au.escape_html = true;
  au.use_classes = true;
  au.url_allowlist = {};
  return au;
}

function applyStyle(el: HTMLElement, style: string): void {
  for (const decl of style.split(";")) {
    const i = decl.indexOf(":");
    if (i < 0) continue;
    const prop = decl.slice(0, i).trim();
    const val = decl.slice(i + 1).trim();
    if (prop === "font-weight" && val === "bold") el.classList.add("ansi-bold");
    else if (prop === "opacity") el.classList.add("ansi-faint");
    else if (prop === "font-style") el.classList.add("ansi-italic");
    else if (prop === "text-decoration") el.classList.add("ansi-underline");
    else if ((prop === "color" || prop === "background-color") && RGB.test(val)) {
      el.style.setProperty(prop, val);
    }
  }
}

/** Render ANSI-coloured text into a fragment owned by the current document. */
export function ansiToFragment(text: string): DocumentFragment {
  const html = converter().ansi_to_html(text).replace(STYLE_ATTR, '<span data-ansi-style="$1"');
  const frag = sanitizeSpans(html, ["data-ansi-style"]);
  frag.querySelectorAll<HTMLElement>("[data-ansi-style]").forEach((el) => {
    const style = el.getAttribute("data-ansi-style") ?? "";
    el.removeAttribute("data-ansi-style");
    applyStyle(el, style);
  });
  return frag;
}

/** Strip escape sequences (for copying / plain display). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b./g, "");
}
