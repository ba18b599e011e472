import { useEffect, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import { useAction } from "../state/action";
import { checkAuth } from "../state/auth";
import { BrandMark } from "./BrandMark";
import { FormError } from "./FormError";

/** The way back in when no password is set (and the other way in when one is). */
function LinkHelp({ passwordLogin }: { passwordLogin: boolean }) {
  return (
    <div class="hint" data-testid="link-help">
      <p>
        {passwordLogin ? "Or sign in with a one-time link: on" : "Sign in with a one-time link: on"} the
        machine where Tradewind runs, run
      </p>
      <pre>
        <code>tradewind link</code>
      </pre>
      <p>
        It prints a link that signs one browser in (valid 15 minutes), and a QR code for a phone. The
        link <code>tradewind serve</code> printed at start works once, too.
        {!passwordLogin && (
          <>
            {" "}
            To sign in with a password instead, stop the server and set one with <code>tradewind passwd</code>.
          </>
        )}
      </p>
    </div>
  );
}

export function SignIn({ reason }: { reason?: string }) {
  const [password, setPassword] = useState("");
  // Unknown until /api/health answers; then whether a password field makes sense at all.
  const [passwordLogin, setPasswordLogin] = useState<boolean | null>(null);

  useEffect(() => {
    api.health().then(
      (h) => setPasswordLogin(h.password_login),
      () => setPasswordLogin(true),
    );
  }, []);

  const signIn = useAction(
    async () => {
      await api.login(password);
      setPassword("");
      await checkAuth();
    },
    {
      message: (err) =>
        err instanceof ApiError && err.status === 401
          ? "Wrong password."
          : err instanceof ApiError && err.status === 429
            ? `Too many attempts. Try again in ${err.retryAfter ?? 60} seconds.`
            : errorText(err),
    },
  );
  const busy = signIn.busy;

  const submit = (e: Event) => {
    e.preventDefault();
    if (password) void signIn.run();
  };

  return (
    <main class="signin">
      <form class="signin-card" onSubmit={submit}>
        <h1 class="brand-title">
          <BrandMark /> Tradewind
        </h1>
        {reason && <p class="notice">{reason}</p>}
        {passwordLogin && (
          <>
            <label class="field">
              <span>Password</span>
              <input
                type="password"
                name="password"
                autocomplete="current-password"
                value={password}
                onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
                autofocus
              />
            </label>
            <FormError error={signIn.error} />
            <button type="submit" class="btn primary" disabled={busy || !password}>
              {busy ? "Signing in…" : "Sign in"}
            </button>
          </>
        )}
        {passwordLogin !== null && <LinkHelp passwordLogin={passwordLogin} />}
      </form>
    </main>
  );
}
