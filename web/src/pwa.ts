// The installable app: register the service worker (secure contexts only: https, or localhost)
// and clear what it keeps when this browser is signed out.

export function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
}

/** Forget the cached app shell (sign-out, or this device was signed out elsewhere). */
export async function clearOfflineShell(): Promise<void> {
  if (typeof caches === "undefined") return;
  try {
    const keys = await caches.keys();
    await Promise.all(keys.map((k) => caches.delete(k)));
  } catch {
    /* nothing cached */
  }
}
