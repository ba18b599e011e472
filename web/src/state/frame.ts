// Coalesce work to one run per animation frame. Background tabs do not run
// rAF callbacks, so a timer fallback keeps state moving there too.
export function frameScheduler(fn: () => void): () => void {
  let pending = false;
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (!pending) return;
    pending = false;
    cancelAnimationFrame(raf);
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    fn();
  };
  return () => {
    if (pending) return;
    pending = true;
    raf = requestAnimationFrame(run);
    timer = setTimeout(run, 120);
  };
}
