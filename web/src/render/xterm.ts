// xterm.js, loaded only when a terminal panel opens (its own chunk, with its stylesheet).
//
// Its DOM renderer writes its theme and row sizes into <style> elements, which the app's CSP
// (`style-src 'self'`) blocks. While the terminal opens (the only time it makes them), a <style>
// it asks for is an inert element whose text goes into a constructed stylesheet adopted by the
// document instead, which CSP allows; the sheet goes with the element.
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { copyText } from "../util/clipboard";
import { screenText } from "../util/terminalKeys";

/** One terminal's screen as the panel uses it. */
export interface Screen {
  write(data: Uint8Array): void;
  /** A clean screen (before a replay). */
  reset(): void;
  /** Fit the screen to its box: its size in cells, or null while the box is hidden. */
  fit(): { cols: number; rows: number } | null;
  focus(): void;
  /** The text of the lines on screen now. */
  visibleText(): string;
  /** What is selected (empty: nothing). */
  selection(): string;
  /** Paste text as the shell should get it (bracketed when the program asked for that). */
  paste(text: string): void;
  /** The program asked for application cursor keys (vi, less). */
  appCursor(): boolean;
  dispose(): void;
}

export interface ScreenOptions {
  /** What the user typed or pasted, as the shell should get it. */
  onData: (data: string | Uint8Array) => void;
  /** The name of its input, read by a screen reader. */
  label: string;
}

export function createScreen(parent: HTMLElement, opts: ScreenOptions): Screen {
  const css = getComputedStyle(parent);
  const color = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const term = new Terminal({
    fontFamily: color("--mono", "monospace"),
    fontSize: 13,
    cursorBlink: true,
    scrollback: 5000,
    theme: {
      background: color("--term-bg", "#14181d"),
      foreground: color("--term-fg", "#dde3ea"),
      cursor: color("--term-fg", "#dde3ea"),
      selectionBackground: "#3a5a80",
    },
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  // Shift+Tab is the way out of the terminal (Tab completes in the shell); Ctrl+Shift+C copies
  // the selection, Ctrl+Shift+V pastes (the browser's paste event, which xterm reads).
  term.attachCustomKeyEventHandler((e) => {
    if (e.key === "Tab" && e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) return false;
    if (e.ctrlKey && e.shiftKey && (e.key === "C" || e.key === "c" || e.key === "V" || e.key === "v")) {
      if (e.type === "keydown" && (e.key === "C" || e.key === "c") && term.hasSelection()) {
        void copyText(term.getSelection());
        e.preventDefault();
      }
      return false;
    }
    return true;
  });
  term.onData((d) => opts.onData(d));
  term.onBinary((d) => {
    const bytes = new Uint8Array(d.length);
    for (let i = 0; i < d.length; i++) bytes[i] = d.charCodeAt(i) & 0xff;
    opts.onData(bytes);
  });
  openCspSafe(term, parent);
  term.textarea?.setAttribute("aria-label", opts.label);

  return {
    write: (d) => term.write(d),
    reset: () => term.reset(),
    fit: () => {
      if (parent.clientWidth === 0 || parent.clientHeight === 0) return null;
      const want = fit.proposeDimensions();
      if (!want || !Number.isFinite(want.cols) || !Number.isFinite(want.rows)) return null;
      const cols = Math.max(2, want.cols);
      const rows = Math.max(1, want.rows);
      if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
      return { cols, rows };
    },
    focus: () => term.focus(),
    visibleText: () => {
      const buf = term.buffer.active;
      const lines: string[] = [];
      for (let y = buf.viewportY; y < buf.viewportY + term.rows; y++) lines.push(buf.getLine(y)?.translateToString(true) ?? "");
      return screenText(lines);
    },
    selection: () => term.getSelection(),
    paste: (text) => term.paste(text),
    appCursor: () => term.modes.applicationCursorKeysMode,
    dispose: () => term.dispose(),
  };
}

/** `term.open(parent)` with its <style> elements made into adopted stylesheets (see the top). */
function openCspSafe(term: Terminal, parent: HTMLElement): void {
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
    if (String(tag).toLowerCase() === "style") return adoptedStyle(this, create.call(this, "tw-xterm-style"));
    return create.call(this, tag, options);
  } as typeof Document.prototype.createElement;
  try {
    term.open(parent);
  } finally {
    Document.prototype.createElement = create;
  }
}

function adoptedStyle(doc: Document, el: HTMLElement): HTMLElement {
  const sheet = new CSSStyleSheet();
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  el.hidden = true;
  let text = "";
  Object.defineProperty(el, "textContent", {
    configurable: true,
    get: () => text,
    set: (v: unknown) => {
      text = v == null ? "" : String(v);
      sheet.replaceSync(text);
    },
  });
  const remove = el.remove.bind(el);
  el.remove = () => {
    remove();
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
  };
  return el;
}
