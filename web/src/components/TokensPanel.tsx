import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ApiToken, CreatedToken, TokenScope } from "../api/types";
import { useAction } from "../state/action";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { Timestamp } from "./Timestamp";
import "../devices.css";

/** Each scope, as the form and the list name it, in the server's order. */
const SCOPES: { scope: TokenScope; label: string; note: string }[] = [
  { scope: "read", label: "Read", note: "sessions, events, artifacts, settings (always on)" },
  { scope: "prompt", label: "Prompt", note: "create sessions, send prompts, cancel runs" },
  { scope: "admin", label: "Admin", note: "widen what the agent may do" },
];

function ScopeBadges({ scopes }: { scopes: TokenScope[] }) {
  const held = SCOPES.filter((s) => scopes.includes(s.scope));
  return (
    <span class="token-scopes" data-scopes={held.map((s) => s.scope).join(" ")}>
      {held.map((s) => (
        <span key={s.scope} class={`badge${s.scope === "admin" ? " badge-warn" : ""}`}>
          {s.scope}
        </span>
      ))}
    </span>
  );
}

/** The secret of a token just made: shown here once, never again. */
function NewSecret({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  // It replaces the form whose button had the focus: the focus comes here, read out with it.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div ref={box} class="token-secret" data-testid="token-secret" tabIndex={-1} aria-label="New token">
      <p>
        <strong>{created.name}</strong> <ScopeBadges scopes={created.scopes} />
      </p>
      <p class="link-row">
        <code>{created.token}</code> <CopyButton text={() => created.token} label="Copy the token" />
      </p>
      <p class="muted small">
        Copy it now: it is not shown again. Programs send it as <code>Authorization: Bearer …</code>.
      </p>
      <button type="button" class="btn small ghost" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** "New token": a name and what it may do; `read` always, `prompt` unless unticked, `admin` if ticked. */
function NewToken({ onCreated }: { onCreated: (t: CreatedToken) => void }) {
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Record<TokenScope, boolean>>({ read: true, prompt: true, admin: false });
  const create = useAction(async () => {
    const scopes = SCOPES.map((s) => s.scope).filter((s) => chosen[s]);
    onCreated(await api.createToken(name.trim(), scopes));
    setName("");
    setChosen({ read: true, prompt: true, admin: false });
  });
  const submit = (e: Event) => {
    e.preventDefault();
    if (name.trim()) void create.run();
  };
  return (
    <form class="settings-form new-token" aria-label="New API token" onSubmit={submit}>
      <label class="field">
        <span>Name</span>
        <input
          name="token_name"
          maxLength={100}
          placeholder="e.g. ci"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <fieldset class="token-scope-choice">
        <legend>It may</legend>
        {SCOPES.map((s) => (
          <label key={s.scope} class="token-scope">
            <input
              type="checkbox"
              name={`scope_${s.scope}`}
              checked={chosen[s.scope]}
              disabled={s.scope === "read"}
              aria-describedby={s.scope === "admin" ? "token-admin-hint" : undefined}
              onChange={(e) => setChosen({ ...chosen, [s.scope]: (e.target as HTMLInputElement).checked })}
            />
            <span>
              {s.label} <span class="muted small">— {s.note}</span>
            </span>
          </label>
        ))}
        <p class="muted small" id="token-admin-hint">
          Admin is needed to answer approvals, change modes and grants, connect MCP servers, edit providers and create
          tokens.
        </p>
      </fieldset>
      <FormError error={create.error} />
      <button type="submit" class="btn" disabled={create.busy || !name.trim()}>
        {create.busy ? "Creating…" : "Create token"}
      </button>
    </form>
  );
}

/** Settings → API tokens: what scripts sign in with, what each may do; make one, revoke one. */
export function TokensPanel() {
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const load = () =>
    api.tokens().then(
      (l) => {
        setTokens(l.data);
        setError(null);
      },
      (e) => setError(`Could not load the tokens: ${errorText(e)}`),
    );
  useEffect(() => {
    void load();
  }, []);
  const revoke = useAction(async (t: ApiToken) => {
    try {
      await api.revokeToken(t.id);
    } finally {
      void load();
    }
  });
  return (
    <section class="card tokens" aria-labelledby="tokens-h">
      <h2 id="tokens-h">API tokens</h2>
      <p class="muted">
        For scripts and other programs (<code>Authorization: Bearer …</code>). Each can do only what it was given.
      </p>
      {tokens && tokens.length === 0 && <p>No API token.</p>}
      {tokens && tokens.length > 0 && (
        <ul class="device-list token-list">
          {tokens.map((t) => (
            <li key={t.id} data-token={t.id}>
              <div>
                <strong>{t.name}</strong> <ScopeBadges scopes={t.scopes} />
                <div class="muted">
                  made <Timestamp at={t.created_at} /> ·{" "}
                  {t.last_used_at ? (
                    <>
                      last used <Timestamp at={t.last_used_at} />
                    </>
                  ) : (
                    "never used"
                  )}
                </div>
              </div>
              <button
                type="button"
                class="btn small danger"
                aria-label={`Revoke ${t.name}`}
                disabled={revoke.busy}
                onClick={() => void revoke.run(t)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={error ?? revoke.error} />
      {created ? (
        <NewSecret created={created} onDone={() => setCreated(null)} />
      ) : (
        <NewToken
          onCreated={(t) => {
            setCreated(t);
            void load();
          }}
        />
      )}
    </section>
  );
}
