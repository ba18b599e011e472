import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProviderSettings, ProviderSettingsUpdate, ProviderTestParams } from "../api/types";
import { useAction } from "../state/action";
import { ApiModeField } from "./ApiModeField";
import { FormError } from "./FormError";
import { ProviderTest } from "./ProviderTest";
import { FORM_KINDS, type FormKind, isFormKind, providerKindName } from "../util/providerNames";

/** The default model provider's form (the first-start setup screen; Settings lists every provider). */
export function ProviderForm({ initial, onSaved }: { initial?: Partial<ProviderSettingsUpdate> | null; onSaved?: (p: ProviderSettings) => void }) {
  const [loaded, setLoaded] = useState<ProviderSettings | null>(null);
  // Only the kinds a form can set: the replay provider (for tests) comes from a start flag.
  const [kind, setKind] = useState<FormKind>(isFormKind(initial?.kind) ? initial.kind : "openai");
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? "");
  const [model, setModel] = useState(initial?.model ?? "");
  const [apiKey, setApiKey] = useState("");
  const [apiMode, setApiMode] = useState<"chat" | "responses">(initial?.api_mode === "responses" ? "responses" : "chat");
  const [status, setStatus] = useState<{ kind: "ok" | "error" | "info"; text: string } | null>(null);

  useEffect(() => {
    api.getProvider().then(
      (p) => {
        setLoaded(p);
        if (initial || !isFormKind(p.kind)) return;
        // What was typed before the answer came is kept.
        setKind(p.kind);
        setBaseUrl((typed) => typed || (p.base_url ?? ""));
        setModel((typed) => typed || (p.model ?? ""));
        setApiMode(p.api_mode === "responses" ? "responses" : "chat");
      },
      (e) => setStatus({ kind: "error", text: `Could not load the provider settings: ${errorText(e)}` }),
    );
  }, []);

  // A choice from outside (the setup screen's probe list) fills the form.
  useEffect(() => {
    if (!initial) return;
    if (isFormKind(initial.kind)) setKind(initial.kind);
    if (initial.base_url != null) setBaseUrl(initial.base_url);
    if (initial.model != null) setModel(initial.model);
  }, [initial]);

  const put = useAction(async () => {
    setStatus(null);
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

  /** What the form says, as a test takes it. */
  const testForm = (): ProviderTestParams | null => ({
    kind,
    base_url: baseUrl.trim() || null,
    model: model.trim() || null,
    api_mode: kind === "openai" ? apiMode : null,
    ...(apiKey ? { api_key: apiKey } : {}),
  });

  return (
    <section class="card">
      <h2>Model provider</h2>
      {loaded && loaded.kind && (
        <p class="muted small" data-provider-source={loaded.source}>
          Running now: <b>{providerKindName(loaded.kind, loaded.api_mode)}</b>
          {loaded.model ? ` · ${loaded.model}` : ""} —{" "}
          {loaded.source === "flags"
            ? "from the start flags (a change saved here replaces it until the next start with flags)"
            : "set here"}
        </p>
      )}
      <form onSubmit={save} class="settings-form">
        <label class="field">
          <span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as FormKind)}>
            {FORM_KINDS.map((k) => (
              <option key={k} value={k}>
                {providerKindName(k)}
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
            spellcheck={false}
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
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
        </div>
        <ProviderTest
          form={testForm}
          current={model}
          noKey={loaded?.api_key_set ? "type the key to test with it" : null}
          onPick={setModel}
        />
        {status && (
          <p class={status.kind === "error" ? "error" : "ok"} role="status">
            {status.text}
          </p>
        )}
        <FormError error={put.error} role="status" />
      </form>
    </section>
  );
}
