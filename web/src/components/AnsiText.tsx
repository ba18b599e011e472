import { useLayoutEffect, useRef } from "preact/hooks";
import { ansiToFragment } from "../render/ansi";

/** ANSI-coloured text, rendered without innerHTML or inline style attributes. */
export function AnsiText({ text, class: cls, label }: { text: string; class?: string; label?: string }) {
  const ref = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (!text.includes("\x1b")) el.textContent = text;
    else el.replaceChildren(ansiToFragment(text));
  }, [text]);
  // A scrolling box: focusable, so its output can be scrolled and read with the keyboard.
  return <pre class={`ansi ${cls ?? ""}`} ref={ref} tabIndex={0} role="region" aria-label={label} />;
}
