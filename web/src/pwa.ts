// The installable app: register the service worker (secure contexts only: https, or localhost),
// clear what it keeps when this browser is signed out, and subscribe this browser to Web Push so
// approvals, questions and plans reach it while the app is closed (sw.js shows them).
import { ApiError, api } from "./api/client";
import type { PushDevice } from "./api/types";
import { withTimeout } from "./util/timeout";

/**
 * How long the browser may take to start the service worker and subscribe with its push service
 * (ms): a browser without one (a private window, a headless one) may never answer at all.
 */
export const PUSH_TIMEOUT_MS = 10_000;
const NO_ANSWER =
  "The browser did not finish subscribing within 10 seconds: it may have no push service (a private window, or a browser without one), or its service worker could not start. Notifications cannot reach this browser while the app is closed.";

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

/** Why this browser cannot get push notifications, or null when it can. */
export function pushUnsupported(): string | null {
  if (!window.isSecureContext) return "Needs HTTPS or localhost: this page is served over plain HTTP.";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || typeof Notification === "undefined") {
    return "This browser has no push service (on an iPhone or iPad, add the app to the home screen first).";
  }
  return null;
}

/** The browser's own push subscription for this app, if it has one. */
export async function browserPushSubscription(): Promise<PushSubscription | null> {
  if (pushUnsupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration("/");
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** The service worker's registration once it is active (`pushManager.subscribe` needs that). */
async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  if (!(await navigator.serviceWorker.getRegistration("/"))) {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  }
  return navigator.serviceWorker.ready;
}

/** A base64url string (no padding) as bytes. */
function fromBase64Url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

/** This browser's push subscription with the server's key: the one it has, or a new one. */
async function browserSubscribe(key: Uint8Array<ArrayBuffer>): Promise<PushSubscription> {
  const reg = await activeRegistration();
  let sub = await reg.pushManager.getSubscription();
  // A subscription made with another key (the server's key was replaced) cannot be reused.
  if (sub && !sameBytes(sub.options.applicationServerKey, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  if (sub) return sub;
  try {
    return await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  } catch (e) {
    const detail = e instanceof Error && e.message ? `: ${e.message}` : "";
    throw new Error(
      `This browser could not subscribe${detail}. A private window, or a browser without a push service, cannot get notifications while the app is closed.`,
    );
  }
}

/**
 * Ask for the notification permission, subscribe this browser with the server's key and register
 * the subscription with the server. Fails with a message fit to show.
 */
export async function subscribePush(): Promise<PushDevice> {
  const why = pushUnsupported();
  if (why) throw new Error(why);
  const permission = await Notification.requestPermission();
  if (permission === "denied") throw new Error("Notifications are blocked for this site in the browser's settings.");
  if (permission !== "granted") throw new Error("Notifications were not allowed.");
  const key = fromBase64Url((await api.pushInfo()).public_key);
  // The permission is given: what follows is the browser's alone, and is given up after a while.
  const sub = await withTimeout(browserSubscribe(key), PUSH_TIMEOUT_MS, NO_ANSWER);
  const json = sub.toJSON();
  return api.subscribePush({
    endpoint: sub.endpoint,
    expirationTime: sub.expirationTime,
    keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
  });
}

/**
 * Register the browser's current push subscription with the server again, if it has one and
 * notifications are allowed (the endpoint replaces its own row): how a subscription the browser
 * renewed while the app was closed reaches the server. Never fails.
 */
export async function renewPushSubscription(): Promise<void> {
  try {
    if (pushUnsupported() || Notification.permission !== "granted") return;
    const sub = await browserPushSubscription();
    if (!sub) return;
    const json = sub.toJSON();
    await api.subscribePush({
      endpoint: sub.endpoint,
      expirationTime: sub.expirationTime,
      keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
    });
  } catch {
    // Nothing to tell the user: the push panel shows the state and subscribes again.
  }
}

/** Stop push to this browser: its own subscription, and the server's rows of this sign-in. */
export async function unsubscribePush(devices: PushDevice[]): Promise<void> {
  await (await browserPushSubscription())?.unsubscribe();
  for (const d of devices) {
    if (!d.current) continue;
    try {
      await api.unsubscribePush(d.id);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
  }
}

/**
 * On sign-out: drop the browser's push subscription (the server deleted its row with the sign-in).
 * Never fails.
 */
export async function forgetPushSubscription(): Promise<void> {
  try {
    await (await browserPushSubscription())?.unsubscribe();
  } catch {
    /* no subscription, or the push service is unreachable: the server has forgotten it anyway */
  }
}
