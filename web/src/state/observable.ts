// A minimal observable value + Preact hook. Enough for this app; no framework.
import { useEffect, useState } from "preact/hooks";

export class Observable<T> {
  private listeners = new Set<(v: T) => void>();
  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(v: T): void {
    if (Object.is(v, this.value)) return;
    this.value = v;
    this.listeners.forEach((fn) => fn(v));
  }

  update(fn: (v: T) => T): void {
    this.set(fn(this.value));
  }

  subscribe(fn: (v: T) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }
}

export function useObservable<T>(o: Observable<T>): T {
  const [, force] = useState(0);
  const value = o.get();
  useEffect(() => {
    const un = o.subscribe(() => force((n) => n + 1));
    // The value may have changed between render and subscribing.
    if (!Object.is(o.get(), value)) force((n) => n + 1);
    return un;
  }, [o]);
  return value;
}
