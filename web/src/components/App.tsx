import { useEffect } from "preact/hooks";
import { api, onUnauthorized } from "../api/client";
import { connection } from "../api/socket";
import { auth } from "../state/app";
import { checkAuth, signedOut } from "../state/auth";
import { useObservable } from "../state/observable";
import { Shell } from "./Shell";
import { SignIn } from "./SignIn";

export function App() {
  const state = useObservable(auth);

  useEffect(() => {
    void checkAuth();
    const off = onUnauthorized(() => {
      if (auth.get().status === "signed_in") signedOut("Your sign-in has expired.");
    });
    connection.onTrouble = () => {
      // The socket keeps failing: maybe the cookie was revoked.
      if (auth.get().status === "signed_in") api.whoami().catch(() => undefined);
    };
    return off;
  }, []);

  // Server unreachable at start: try again when the browser is back online, and every few
  // seconds meanwhile, so the message never outlives the outage.
  useEffect(() => {
    if (state.status !== "unreachable") return;
    const again = () => void checkAuth();
    window.addEventListener("online", again);
    const t = setTimeout(again, 3000);
    return () => {
      window.removeEventListener("online", again);
      clearTimeout(t);
    };
  }, [state]);

  switch (state.status) {
    case "loading":
      return <div class="splash" aria-busy="true">Loading…</div>;
    case "unreachable":
      return (
        <div class="splash">
          <p>The Tradewind server cannot be reached.</p>
          <p class="muted">{state.message}</p>
          <button type="button" class="btn" onClick={() => void checkAuth()}>
            Try again
          </button>
        </div>
      );
    case "signed_out":
      return <SignIn reason={state.reason} />;
    case "signed_in":
      return <Shell />;
  }
}
