// Replace ```mermaid fences (already rendered as escaped code) with diagrams.
// A diagram that does not parse stays as code with the error under it.
import { renderDiagram } from "../render/mermaid";

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
      status.textContent = `Diagram error: ${message}`;
      status.className = "error small";
      pre.hidden = false;
      onResult?.(message || "the diagram could not be rendered");
    },
  );
}
