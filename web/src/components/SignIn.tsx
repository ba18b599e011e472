import { useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import { checkAuth } from "../state/auth";

export function SignIn({ reason }: { reason?: string }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
        setError(
          `Too many attempts. Try again in ${err.retryAfter ?? 60} seconds.`,
        );
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <form class="signin-card" onSubmit={submit}>
        <h1 class="brand-title">
          <span class="brand-mark" aria-hidden="true" /> Tradewind
        </h1>
        {reason && <p class="notice">{reason}</p>}
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
        <p class="hint">
          On the server's machine, open the address that <code>tradewind serve</code> printed when it
          started (it ends in <code>?token=…</code>). No password yet? Set one with{" "}
          <code>tradewind passwd</code>.
        </p>
      </form>
    </main>
  );
}
