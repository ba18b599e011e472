// Mermaid, loaded only when a diagram is on screen. Rendered with
// securityLevel "strict" and no HTML labels; the SVG is shown as an <img> from
// a blob: URL, so no script in it can run, its own CSS stays inside it, and it
// cannot load anything.
type MermaidApi = typeof import("mermaid")["default"];

let loading: Promise<MermaidApi> | null = null;
let counter = 0;
let queue: Promise<unknown> = Promise.resolve();

function theme(): "dark" | "default" {
  return document.documentElement.dataset.resolvedTheme === "dark" ? "dark" : "default";
}

async function load(): Promise<MermaidApi> {
  if (!loading) {
    loading = import("mermaid").then((m) => m.default);
  }
  return loading;
}

/**
 * Mermaid writes `style` attributes and a <style> element into the page while
 * it lays a diagram out; our CSP blocks both. For the duration of one render,
 * style attributes go through CSSOM (allowed) and <style> elements are created
 * as inert placeholders whose CSS is captured and put back into the SVG image.
 */
async function cspSafe<T>(styles: Element[], fn: () => Promise<T>): Promise<T> {
  const setAttr = Element.prototype.setAttribute;
  const setAttrNS = Element.prototype.setAttributeNS;
  const create = Document.prototype.createElement;
  const parse = DOMParser.prototype.parseFromString;
  // Mermaid sanitizes its SVG (and labels) by parsing them in this page. Rename
  // style and on* attributes inside tags first, so the parse trips no CSP check;
  // the sanitizer drops event handlers anyway and styles are restored later.
  DOMParser.prototype.parseFromString = function (this: DOMParser, str: string, type: DOMParserSupportedType) {
    return parse.call(this, inertAttributes(String(str)), type);
  };
  Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === "style" && (this instanceof HTMLElement || this instanceof SVGElement)) {
      this.style.cssText = String(value);
      return;
    }
    setAttr.call(this, name, value);
  };
  Element.prototype.setAttributeNS = function (this: Element, ns: string | null, name: string, value: string) {
    if (!ns && name.toLowerCase() === "style" && (this instanceof HTMLElement || this instanceof SVGElement)) {
      this.style.cssText = String(value);
      return;
    }
    setAttrNS.call(this, ns, name, value);
  };
  Document.prototype.createElement = function (this: Document, tag: string, opts?: ElementCreationOptions) {
    if (String(tag).toLowerCase() === "style") {
      const el = create.call(this, "tw-mermaid-style");
      styles.push(el);
      return el;
    }
    return create.call(this, tag, opts);
  } as typeof Document.prototype.createElement;
  try {
    return await fn();
  } finally {
    Element.prototype.setAttribute = setAttr;
    Element.prototype.setAttributeNS = setAttrNS;
    Document.prototype.createElement = create;
    DOMParser.prototype.parseFromString = parse;
  }
}

function inertAttributes(html: string): string {
  return html.replace(/<[a-zA-Z][^>]*>/g, (tag) =>
    tag.replace(/(\s)(style|on[a-z]+)(\s*=)/gi, (_m, sp: string, name: string, eq: string) =>
      `${sp}data-tw-${name.toLowerCase()}${eq}`,
    ),
  );
}

export interface DiagramResult {
  url: string;
  width: number;
  height: number;
}

/** Render Mermaid source to a blob: URL of an SVG image. Throws with the parser's message. */
export function renderDiagram(source: string): Promise<DiagramResult> {
  // Mermaid keeps global state: render one diagram at a time.
  const job = queue.then(() => renderOne(source));
  queue = job.catch(() => undefined);
  return job;
}

async function renderOne(source: string): Promise<DiagramResult> {
  const mermaid = await load();
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme: theme(),
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    fontFamily: "system-ui, sans-serif",
    secure: ["secure", "securityLevel", "startOnLoad", "maxTextSize", "htmlLabels", "theme", "themeCSS", "fontFamily"],
    maxTextSize: 20000,
  });
  await cspSafe([], () => mermaid.parse(source));
  const id = `tw-mermaid-${++counter}`;
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  Object.assign(host.style, {
    position: "absolute",
    left: "-20000px",
    top: "0",
    width: "1200px",
    visibility: "hidden",
    font: "16px system-ui, sans-serif",
  });
  document.body.append(host);
  const styles: Element[] = [];
  let svg: string;
  try {
    svg = await cspSafe(styles, () => mermaid.render(id, source, host)).then((r) => r.svg);
  } finally {
    host.remove();
    document.getElementById(id)?.remove();
    document.getElementById(`d${id}`)?.remove();
  }
  // String surgery only: parsing the SVG in this page would make the browser
  // report (harmless, blocked) inline-style CSP violations.
  svg = svg
    .replace(/ data-tw-style="/g, ' style="')
    .replace(/\sdata-tw-on[a-z]+="[^"]*"/g, "")
    // What is left was label text that only looked like an attribute: show it as written.
    .replace(/data-tw-(on[a-z]+|style)/g, "$1");
  const open = /^\s*<svg\b[^>]*>/.exec(svg);
  if (!open) throw new Error("Mermaid produced no SVG");
  let head = open[0];
  let rest = svg.slice(head.length);
  // The sanitizer kept the CSS of the removed <style> as stray text: drop it.
  rest = rest.replace(/^[^<]*/, "");
  let width = 600;
  let height = 400;
  const vb = /\sviewBox="([^"]*)"/.exec(head)?.[1].split(/[\s,]+/).map(Number);
  if (vb && vb.length === 4 && vb.every((n) => Number.isFinite(n))) {
    width = vb[2];
    height = vb[3];
  }
  head = head.replace(/\s(width|height)="[^"]*"/g, "").replace(/\sstyle="[^"]*"/, "");
  head = head.replace(/^(\s*<svg\b)/, `$1 width="${Math.ceil(width)}" height="${Math.ceil(height)}"`);
  const css = styles.map((el) => el.textContent ?? "").join("\n").replace(/<\/?style/gi, "");
  const text = `${head}${css ? `<style>${css}</style>` : ""}${rest}`;
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  return { url, width, height };
}
