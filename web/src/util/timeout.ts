// A browser promise that may never settle (a push service that is not there, a service worker
// that never starts): given up after a while with a message fit to show.

/** Resolves or rejects as `p` does, or rejects with `message` after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
