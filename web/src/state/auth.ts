// Sign-in state transitions.
import { ApiError, api, errorText } from "../api/client";
import { connection } from "../api/socket";
import { clearOfflineShell } from "../pwa";
import { auth, serverConfig } from "./app";
import { startSessionList, stopSessionList } from "./sessions";

export async function checkAuth(): Promise<void> {
  try {
    const who = await api.whoami();
    auth.set({ status: "signed_in", who });
    connection.start();
    startSessionList();
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
