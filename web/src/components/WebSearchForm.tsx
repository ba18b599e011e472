import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { SearchProvider, WebSearchSettings, WebSearchSettingsUpdate } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";
import "../websearch.css";

/** Where the choice in use came from, said the way the model provider section says it. */
function sourceText(source: WebSearchSettings["source"]): string {
  switch (source) {
    case "default":
      return "not chosen yet: the agent's first search asks you before any query goes to this public instance";
    case "config":
      return "from config.json (a change saved here replaces it)";
    case "settings":
      return "set here";
  }
}

/**
 * The SearXNG URL the form starts with: none while nothing is configured (the field then shows
 * the default instance as its placeholder, and saving it blank keeps following the default).
 */
function chosenUrl(v: WebSearchSettings): string {
  return v.source === "default" ? "" : v.searxng_url;
}

/** Settings → Web search: the provider the `websearch` tool uses, its SearXNG URL and API key. */
export function WebSearchForm() {
  const [loaded, setLoaded] = useState<WebSearchSettings | null>(null);
  const [provider, setProvider] = useState<SearchProvider>("searxng");
  const [url, setUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [status, setStatus] = useState<{ kind: "ok" | "error"; text: string } | null>(null);

  const show = (v: WebSearchSettings) => {
    setLoaded(v);
    setProvider(v.provider);
    setUrl(chosenUrl(v));
    setApiKey("");
  };

  useEffect(() => {
    api.getWebSearch().then(show, (e) =>
      setStatus({ kind: "error", text: `Could not load the web search settings: ${errorText(e)}` }),
    );
  }, []);

  const info = loaded?.providers.find((p) => p.id === provider);
  const keyEnv = info?.key_env ?? null;

  // A failure stores nothing: the form keeps what the user typed, to correct it.
  const put = useAction(async (settings: WebSearchSettings) => {
    setStatus(null);
    const body: WebSearchSettingsUpdate = {
      provider,
      // The stored URL is replaced on every save: another provider keeps the one in use.
      searxng_url: provider === "searxng" ? url.trim() : chosenUrl(settings),
      ...(keyEnv && apiKey ? { api_key: apiKey } : {}),
    };
    show(await api.putWebSearch(body));
    setStatus({ kind: "ok", text: "Saved." });
  });
  const busy = put.busy;

  const save = (e: Event) => {
    e.preventDefault();
    if (loaded) void put.run(loaded);
  };

  const labelOf = (id: SearchProvider) => loaded?.providers.find((p) => p.id === id)?.label ?? id;

  // Whether a key is available is known for the provider in use only (the server reads the
  // environment variable of that one).
  const keyState = !keyEnv ? null : provider !== loaded?.provider ? "unknown" : loaded.api_key_set ? "set" : "unset";
  const keyText =
    keyState === "set"
      ? "a key is set — leave empty to keep it"
      : keyState === "unset"
        ? `no key — set it here or in $${keyEnv}`
        : `set it here or in $${keyEnv}`;

  return (
    <section class="card websearch" aria-labelledby="websearch-h">
      <h2 id="websearch-h">Web search</h2>
      {loaded && (
        <p class="muted small" data-websearch-source={loaded.source}>
          In use: <b>{labelOf(loaded.provider)}</b>
          {loaded.provider === "searxng" && !loaded.endpoint ? ` · ${loaded.searxng_url}` : ""} —{" "}
          {sourceText(loaded.source)}
        </p>
      )}
      {loaded && (
        <form onSubmit={save} class="settings-form">
          <fieldset class="websearch-providers">
            <legend>Provider</legend>
            {loaded.providers.map((p) => (
              <div key={p.id} class={`option${provider === p.id ? " chosen" : ""}`}>
                <input
                  type="radio"
                  id={`websearch-${p.id}`}
                  name="websearch_provider"
                  value={p.id}
                  checked={provider === p.id}
                  aria-describedby={`websearch-${p.id}-note`}
                  onChange={() => setProvider(p.id)}
                />
                <span class="option-text">
                  <label for={`websearch-${p.id}`} class="option-label">
                    {p.label}
                  </label>
                  <span id={`websearch-${p.id}-note`} class="muted small block">
                    {p.note}
                  </span>
                </span>
              </div>
            ))}
          </fieldset>
          {loaded.endpoint && (
            <p class="small" data-websearch-endpoint>
              Searches go to <code>{loaded.endpoint}</code>: <code>websearch.endpoint</code> in config.json replaces
              the provider's own address{provider === "searxng" ? " and the SearXNG URL below" : ""} (change it
              there).
            </p>
          )}
          {provider === "searxng" && (
            <>
              <label class="field">
                <span>SearXNG URL</span>
                <input
                  name="searxng_url"
                  type="url"
                  value={url}
                  placeholder={loaded.source === "default" ? loaded.searxng_url : undefined}
                  spellcheck={false}
                  aria-describedby="websearch-url-hint"
                  onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
                />
              </label>
              <p id="websearch-url-hint" class="muted small field-hint">
                https://, or http:// on this machine only (localhost, 127.0.0.1). Empty: the default public instance.
              </p>
            </>
          )}
          {keyEnv && (
            <label class="field">
              <span data-key-state={keyState}>API key ({keyText})</span>
              <input
                name="websearch_api_key"
                type="password"
                autocomplete="off"
                value={apiKey}
                placeholder={keyState === "set" ? "••••••••" : ""}
                onInput={(e) => setApiKey((e.target as HTMLInputElement).value)}
              />
            </label>
          )}
          <div class="row">
            <button type="submit" class="btn primary" disabled={busy}>
              {busy ? "Saving…" : "Save"}
            </button>
          </div>
          {status && (
            <p class={status.kind === "error" ? "error" : "ok"} role="status">
              {status.text}
            </p>
          )}
          <FormError error={put.error} role="status" />
        </form>
      )}
      {!loaded && status && (
        <p class="error" role="status">
          {status.text}
        </p>
      )}
    </section>
  );
}
