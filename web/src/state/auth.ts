// Sign-in state transitions.
import { ApiError, api, errorText } from "../api/client";
import type { WhoAmI } from "../api/types";
import { connection } from "../api/socket";
import { clearOfflineShell, forgetPushSubscription, renewPushSubscription } from "../pwa";
import { auth, serverConfig } from "./app";
import { route } from "./router";
import { prefetchNewest } from "./pager";
import { startSessionList, stopSessionList } from "./sessions";

/** The first sign-in check, asked for as the app's script starts (before its first render). */
let firstCheck: Promise<WhoAmI> | null = null;

/**
 * Start reading what the first screen needs, before the first render: who we are and, for a
 * session opened by its address, its newest events (both on their way while the app renders).
 */
export function startEarly(): void {
  firstCheck = api.whoami();
  firstCheck.catch(() => undefined); // read by checkAuth
  const r = route.get();
  if (r.name === "session") prefetchNewest(r.id);
}

export async function checkAuth(): Promise<void> {
  const early = firstCheck;
  firstCheck = null;
  try {
    const who = await (early ?? api.whoami());
    auth.set({ status: "signed_in", who });
    connection.start();
    startSessionList();
    // The service worker cannot authenticate a renewed push subscription (it has no page
    // token): the app registers the browser's current one again each time it opens.
    if (who.kind === "cookie") void renewPushSubscription();
    api.config().then(
      (c) => serverConfig.set(c),
      () => undefined,
    );
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      signedOut();
    } else {
      auth.set({ status: "unreachable", message: errorText(e) });
    }
  }
}

export function signedOut(reason?: string): void {
  connection.stop();
  stopSessionList();
  void clearOfflineShell();
  void forgetPushSubscription();
  auth.set({ status: "signed_out", reason });
}

export async function signOut(): Promise<void> {
  try {
    await api.logout();
  } catch {
    // Signed out anyway from the user's point of view.
  }
  signedOut();
}
