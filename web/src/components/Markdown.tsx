import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { renderMarkdown } from "../render/markdown";
import { addCodeCopyButtons, onCodeCopyClick } from "./codeCopy";
import { enhanceDiagrams } from "./diagrams";

/** Big messages re-render at most this often while streaming. */
const STREAM_THROTTLE_MS = 200;

export function openExternal(e: MouseEvent): void {
  if (onCodeCopyClick(e)) return;
  const a = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute("href") ?? "";
  if (!/^(https?:|mailto:)/i.test(href)) return;
  if (confirm(`Open this link in a new tab?\n\n${href}`)) {
    window.open(href, "_blank", "noopener,noreferrer");
  }
}

export function Markdown({ source, final }: { source: string; final: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(source);
  const lastRender = useRef(0);

  useEffect(() => {
    if (final || source.length < 4000) {
      setShown(source);
      lastRender.current = performance.now();
      return;
    }
    const wait = STREAM_THROTTLE_MS - (performance.now() - lastRender.current);
    if (wait <= 0) {
      setShown(source);
      lastRender.current = performance.now();
      return;
    }
    const t = setTimeout(() => {
      setShown(source);
      lastRender.current = performance.now();
    }, wait);
    return () => clearTimeout(t);
  }, [source, final]);

  const text = final || source.length < 4000 ? source : shown;
  const html = useMemo(() => renderMarkdown(text), [text]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !final) return;
    if (el.querySelector("pre code[class*='language-']")) {
      void import("../render/highlight").then((m) => m.highlightWithin(el));
    }
    enhanceDiagrams(el);
    addCodeCopyButtons(el);
  }, [html, final]);

  return <div class="markdown" ref={ref} onClick={openExternal} dangerouslySetInnerHTML={{ __html: html }} />;
}
