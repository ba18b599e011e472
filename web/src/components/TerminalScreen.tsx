import { useEffect, useRef, useState } from "preact/hooks";
import type { Screen } from "../render/xterm";
import { type TermView, terminals } from "../state/terminals";

type XtermModule = typeof import("../render/xterm");
let loading: Promise<XtermModule> | null = null;

/** xterm.js and its stylesheet: their own chunk, fetched when the first terminal shows. */
function loadXterm(): Promise<XtermModule> {
  loading ??= import("../render/xterm").catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

/**
 * One terminal's screen (xterm.js), fitted to its box: each new size is sent to the server. What
 * is typed or pasted goes through `onData` (the panel's sticky Ctrl applies to it). Every screen
 * of the panel keeps its box while another shows, so each is measured and attached.
 */
export function TerminalScreen({
  term,
  active,
  onData,
  onScreen,
}: {
  term: TermView;
  active: boolean;
  onData: (key: string, data: string | Uint8Array) => void;
  /** The screen is ready (or gone: null): the panel's buttons act on it. */
  onScreen: (key: string, screen: Screen | null) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ onData, onScreen });
  latest.current = { onData, onScreen };

  useEffect(() => {
    let live = true;
    let screen: Screen | null = null;
    let unbind: (() => void) | null = null;
    let observer: ResizeObserver | null = null;
    const key = term.key;
    loadXterm().then(
      (m) => {
        const el = box.current;
        if (!live || !el) return;
        const s = m.createScreen(el, {
          onData: (d) => latest.current.onData(key, d),
          label: `Terminal ${term.n} input`,
        });
        screen = s;
        unbind = terminals.bind(key, s);
        const measure = () => {
          const size = s.fit();
          if (size) terminals.measure(key, size.cols, size.rows);
        };
        observer = new ResizeObserver(measure);
        observer.observe(el);
        measure();
        latest.current.onScreen(key, s);
      },
      () => live && setError("The terminal could not be loaded: reload the page to try again."),
    );
    return () => {
      live = false;
      observer?.disconnect();
      unbind?.();
      screen?.dispose();
      if (screen) latest.current.onScreen(key, null);
    };
  }, [term.key]);

  return (
    <div
      class={`term-screen${active ? " active" : ""}`}
      id={`term-screen-${term.key}`}
      data-terminal={term.id ?? ""}
      data-status={term.status.kind}
      data-cols={term.size?.cols}
      data-rows={term.size?.rows}
    >
      {error ? <p class="error small">{error}</p> : <div class="term-box" ref={box} />}
    </div>
  );
}
