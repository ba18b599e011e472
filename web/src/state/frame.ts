/** True while work run by a frame scheduler, and the renders it queued, run in an animation frame. */
let framing = false;

export function inAnimationFrame(): boolean {
  return framing;
}

// Coalesce work to one run per animation frame. Background tabs do not run
// rAF callbacks, so a timer fallback keeps state moving there too.
export function frameScheduler(fn: () => void): () => void {
  let pending = false;
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (inFrame: boolean) => {
    if (!pending) return;
    pending = false;
    cancelAnimationFrame(raf);
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    framing = inFrame;
    try {
      fn();
    } finally {
      // Preact renders what `fn` changed in a microtask queued before this one.
      queueMicrotask(() => (framing = false));
    }
  };
  return () => {
    if (pending) return;
    pending = true;
    raf = requestAnimationFrame(() => run(true));
    timer = setTimeout(() => run(false), 120);
  };
}

/**
 * When Preact runs effects (`useEffect`): after the frame that shows the render is painted.
 * Preact's own way waits for the next animation frame, a frame of work of its own after every
 * render; a render made in an animation frame is painted at the end of that frame's task, so a
 * task queued now runs after the paint. Other renders wait for the next frame (or 35 ms when
 * the tab is hidden and frames stop), as Preact does.
 */
export function afterPaint(cb: () => void): void {
  if (framing) {
    setTimeout(cb);
    return;
  }
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    clearTimeout(t);
    cancelAnimationFrame(r);
    setTimeout(cb);
  };
  const t = setTimeout(go, 35);
  const r = requestAnimationFrame(go);
}
