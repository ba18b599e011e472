import { useEffect, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import { checkAuth } from "../state/auth";
import { BrandMark } from "./BrandMark";

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
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Unknown until /api/health answers; then whether a password field makes sense at all.
  const [passwordLogin, setPasswordLogin] = useState<boolean | null>(null);

  useEffect(() => {
    api.health().then(
      (h) => setPasswordLogin(h.password_login),
      () => setPasswordLogin(true),
    );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!password || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.login(password);
      setPassword("");
      await checkAuth();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError("Wrong password.");
      else if (err instanceof ApiError && err.status === 429)
        setError(`Too many attempts. Try again in ${err.retryAfter ?? 60} seconds.`);
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
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
            {error && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
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
