import { useEffect, useState } from "preact/hooks";

/**
 * A view's code, fetched the first time it shows (the app's first load does without it): a hook
 * giving the module once loaded, and whether loading failed.
 */
export function lazyModule<M>(load: () => Promise<M>) {
  let done: M | null = null;
  let pending: Promise<M> | null = null;
  return function useModule(needed: boolean): { mod: M | null; failed: boolean } {
    const [mod, setMod] = useState<M | null>(done);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (!needed || mod) return;
      let live = true;
      pending ??= load().then((m) => (done = m));
      pending.then(
        (m) => live && setMod(m),
        () => {
          pending = null;
          if (live) setFailed(true);
        },
      );
      return () => {
        live = false;
      };
    }, [needed]);
    return { mod, failed };
  };
}
