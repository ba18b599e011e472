import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProviderSettings, ProviderSettingsUpdate } from "../api/types";
import { useAction } from "../state/action";
import { ApiModeField } from "./ApiModeField";
import { FormError } from "./FormError";

const KINDS = ["openai", "anthropic", "replay"];

/** The default model provider's form (the first-start setup screen; Settings lists every provider). */
export function ProviderForm({ initial, onSaved }: { initial?: Partial<ProviderSettingsUpdate> | null; onSaved?: (p: ProviderSettings) => void }) {
  const [loaded, setLoaded] = useState<ProviderSettings | null>(null);
  const [kind, setKind] = useState<string>(initial?.kind || "openai");
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? "");
  const [model, setModel] = useState(initial?.model ?? "");
  const [apiKey, setApiKey] = useState("");
  const [apiMode, setApiMode] = useState<"chat" | "responses">(initial?.api_mode === "responses" ? "responses" : "chat");
  const [status, setStatus] = useState<{ kind: "ok" | "error" | "info"; text: string } | null>(null);
  const [test, setTest] = useState<{ ok: boolean; text: string; models?: string[] } | null>(null);

  useEffect(() => {
    api.getProvider().then(
      (p) => {
        setLoaded(p);
        if (initial) return;
        setKind(p.kind || "openai");
        setBaseUrl(p.base_url ?? "");
        setModel(p.model ?? "");
        setApiMode(p.api_mode === "responses" ? "responses" : "chat");
      },
      (e) => setStatus({ kind: "error", text: `Could not load the provider settings: ${errorText(e)}` }),
    );
  }, []);

  // A choice from outside (the setup screen's probe list) fills the form.
  useEffect(() => {
    if (!initial) return;
    if (initial.kind) setKind(initial.kind);
    if (initial.base_url != null) setBaseUrl(initial.base_url);
    if (initial.model != null) setModel(initial.model);
  }, [initial]);

  const put = useAction(async () => {
    setStatus(null);
    if (kind !== "openai" && kind !== "anthropic") {
      throw new Error("The replay provider is set with --replay when the server starts.");
    }
    const p = await api.putProvider({
      kind,
      base_url: baseUrl.trim(),
      model: model.trim(),
      api_mode: kind === "openai" ? apiMode : null,
      ...(apiKey ? { api_key: apiKey } : {}),
    });
    setLoaded(p);
    setApiKey("");
    setStatus({ kind: "ok", text: "Saved." });
    onSaved?.(p);
  });
  const busy = put.busy;

  const save = (e: Event) => {
    e.preventDefault();
    void put.run();
  };

  const testConnection = async () => {
    setTest({ ok: true, text: "Testing…" });
    try {
      const r = await api.models();
      const ids = r.data.map((m) => m.id);
      setTest({ ok: true, text: `Connected: ${ids.length} model${ids.length === 1 ? "" : "s"} available.`, models: ids });
    } catch (err) {
      setTest({ ok: false, text: `Connection failed: ${errorText(err)}` });
    }
  };

  return (
    <section class="card">
      <h2>Model provider</h2>
      {loaded && loaded.kind && (
        <p class="muted small" data-provider-source={loaded.source}>
          Running now: <b>{loaded.kind}</b>
          {loaded.model ? ` · ${loaded.model}` : ""} —{" "}
          {loaded.source === "flags"
            ? "from the start flags (a change saved here replaces it until the next start with flags)"
            : "set here"}
        </p>
      )}
      <form onSubmit={save} class="settings-form">
        <label class="field">
          <span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            {[...new Set([...KINDS, kind])].map((k) => (
              <option key={k} value={k}>
                {k === "openai" ? "OpenAI-compatible" : k}
              </option>
            ))}
          </select>
        </label>
        {kind === "openai" && <ApiModeField value={apiMode} onChange={setApiMode} />}
        <label class="field">
          <span>Base URL</span>
          <input
            name="base_url"
            type="url"
            value={baseUrl}
            placeholder="http://127.0.0.1:11434/v1"
            spellcheck={false}
            onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="field">
          <span>Model</span>
          <input
            name="model"
            value={model}
            list="model-options"
            spellcheck={false}
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
          {test?.models && (
            <datalist id="model-options">
              {test.models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          )}
        </label>
        <label class="field">
          <span>API key {loaded?.api_key_set ? "(set — leave empty to keep it)" : "(not set)"}</span>
          <input
            name="api_key"
            type="password"
            autocomplete="off"
            value={apiKey}
            placeholder={loaded?.api_key_set ? "••••••••" : ""}
            onInput={(e) => setApiKey((e.target as HTMLInputElement).value)}
          />
        </label>
        <div class="row">
          <button type="submit" class="btn primary" disabled={busy}>
            {busy ? "Saving…" : "Save"}
          </button>
          <button type="button" class="btn" onClick={() => void testConnection()}>
            Test connection
          </button>
        </div>
        {status && (
          <p class={status.kind === "error" ? "error" : "ok"} role="status">
            {status.text}
          </p>
        )}
        <FormError error={put.error} role="status" />
        {test && (
          <p class={test.ok ? "ok" : "error"} role="status">
            {test.text}
          </p>
        )}
      </form>
    </section>
  );
}
