// Replace ```mermaid fences (already rendered as escaped code) with diagrams.
// A diagram that does not parse says so in a line, its code folded under it.
import { renderDiagram } from "../render/mermaid";
import "../polish.css";

export function enhanceDiagrams(root: HTMLElement): void {
  root.querySelectorAll<HTMLElement>("pre > code.language-mermaid:not([data-diagram])").forEach((code) => {
    code.dataset.diagram = "1";
    const pre = code.parentElement;
    if (!pre) return;
    const source = code.textContent ?? "";
    const fig = document.createElement("figure");
    fig.className = "diagram loading";
    const status = document.createElement("figcaption");
    status.className = "muted small";
    status.textContent = "Rendering diagram…";
    fig.append(status);
    pre.before(fig);
    pre.hidden = true;
    mountDiagram(fig, pre, status, source);
  });
}

/** The most of Mermaid's first line a failed diagram's message quotes. */
const ERROR_CHARS = 160;

/**
 * What a diagram that failed says: "This diagram could not be drawn: Parse error on line 2." (the
 * first line of Mermaid's message; the rest is its parser's dump of the source and tokens).
 */
export function diagramErrorText(message: string): string {
  let first = message.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  if (first.length > ERROR_CHARS) first = `${first.slice(0, ERROR_CHARS)}…`;
  first = first.replace(/[:\s]+$/, "");
  if (!first) return "This diagram could not be drawn.";
  return `This diagram could not be drawn: ${first}${/[.!?…]$/.test(first) ? "" : "."}`;
}

/** `onResult`: called once, with null when the diagram rendered, else with Mermaid's error. */
export function mountDiagram(
  fig: HTMLElement,
  pre: HTMLElement,
  status: HTMLElement,
  source: string,
  onResult?: (error: string | null) => void,
): void {
  renderDiagram(source).then(
    ({ url, width, height }) => {
      const img = document.createElement("img");
      img.src = url;
      img.alt = "Diagram";
      img.width = Math.round(width);
      img.height = Math.round(height);
      img.className = "diagram-img";
      fig.classList.remove("loading");
      status.remove();
      fig.prepend(img);
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "linklike small";
      toggle.textContent = "Show source";
      toggle.addEventListener("click", () => {
        pre.hidden = !pre.hidden;
        toggle.textContent = pre.hidden ? "Show source" : "Hide source";
      });
      fig.append(toggle);
      onResult?.(null);
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      fig.classList.remove("loading");
      fig.classList.add("diagram-error");
      // A short message, not the parser's dump; the source folded under it.
      status.textContent = diagramErrorText(message);
      status.className = "error small diagram-error-text";
      status.title = message;
      const details = document.createElement("details");
      details.className = "diagram-source";
      const summary = document.createElement("summary");
      summary.textContent = "Show the diagram's source";
      // A copy: the `pre` stays where its renderer put it (hidden), whoever owns it.
      const copy = pre.cloneNode(true) as HTMLElement;
      copy.hidden = false;
      details.append(summary, copy);
      fig.append(details);
      onResult?.(message || "the diagram could not be rendered");
    },
  );
}
