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
  await mermaid.parse(source);
  const id = `tw-mermaid-${++counter}`;
  const { svg } = await mermaid.render(id, source);
  document.getElementById(id)?.remove();
  document.getElementById(`d${id}`)?.remove();
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const root = doc.documentElement;
  let width = 600;
  let height = 400;
  const vb = root.getAttribute("viewBox")?.split(/[\s,]+/).map(Number);
  if (vb && vb.length === 4 && vb.every((n) => Number.isFinite(n))) {
    width = vb[2];
    height = vb[3];
  }
  root.setAttribute("width", String(Math.ceil(width)));
  root.setAttribute("height", String(Math.ceil(height)));
  const text = new XMLSerializer().serializeToString(root);
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  return { url, width, height };
}
