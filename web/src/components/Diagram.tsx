import { useEffect, useRef } from "preact/hooks";
import { mountDiagram } from "./diagrams";

/** One Mermaid diagram (lazy); one that fails to parse says so in a line, its code folded under it. */
export function Diagram({ source, onResult }: { source: string; onResult?: (error: string | null) => void }) {
  const fig = useRef<HTMLElement>(null);
  const pre = useRef<HTMLPreElement>(null);
  const status = useRef<HTMLElement>(null);
  useEffect(() => {
    if (fig.current && pre.current && status.current) mountDiagram(fig.current, pre.current, status.current, source, onResult);
  }, [source]);
  return (
    <figure class="diagram loading" ref={fig}>
      <figcaption class="muted small" ref={status}>
        Rendering diagram…
      </figcaption>
      <pre class="code" ref={pre} hidden>
        <code>{source}</code>
      </pre>
    </figure>
  );
}
