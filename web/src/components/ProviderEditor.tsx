import type { ComponentChildren } from "preact";
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProviderKind, ProviderView } from "../api/types";
import { useAction } from "../state/action";
import { ApiModeField } from "./ApiModeField";
import { FormError } from "./FormError";
import { ProviderTest } from "./ProviderTest";
import { providerKindName } from "../util/providerNames";

const KINDS: { value: ProviderKind; label: string; url: string; keyEnv: string }[] = [
  { value: "openai", label: providerKindName("openai"), url: "http://127.0.0.1:11434/v1", keyEnv: "OPENAI_API_KEY" },
  { value: "anthropic", label: providerKindName("anthropic"), url: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY" },
];

/** What the server takes as an id: 1 to 32 of a-z 0-9 _ -, starting with a letter or digit. */
const ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** What it takes as a variable name. */
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

type Field = "id" | "model" | "api_key_env";

/**
 * Add a provider (`existing` null: with its id) or change one: kind, its API (an OpenAI-compatible
 * one speaks Chat Completions or the Responses API), base URL, model, a key
 * (write-only: left empty, the stored one is kept) and the environment variable to read the key
 * from instead. Checked here first (each field says what is wrong), then by the server, which
 * stores nothing when it refuses. The first field has the focus when it opens.
 */
export function ProviderEditor({
  existing,
  taken,
  onSaved,
  onCancel,
}: {
  existing: ProviderView | null;
  /** The ids in use (a new provider cannot take one). */
  taken: string[];
  onSaved: (p: ProviderView) => void;
  onCancel: () => void;
}) {
  const uid = useId();
  const first = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const [id, setId] = useState("");
  const [kind, setKind] = useState<ProviderKind>(existing?.kind === "anthropic" ? "anthropic" : "openai");
  const [baseUrl, setBaseUrl] = useState(existing?.base_url ?? "");
  const [model, setModel] = useState(existing?.model ?? "");
  const [apiKey, setApiKey] = useState("");
  const [keyEnv, setKeyEnv] = useState(existing?.api_key_env ?? "");
  const [apiMode, setApiMode] = useState<"chat" | "responses">(existing?.api_mode === "responses" ? "responses" : "chat");
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const k = KINDS.find((x) => x.value === kind) ?? KINDS[0];

  useLayoutEffect(() => first.current?.focus(), []);

  const check = (): Partial<Record<Field, string>> => {
    const e: Partial<Record<Field, string>> = {};
    const newId = id.trim();
    if (!existing) {
      if (!ID_PATTERN.test(newId)) e.id = "Use 1 to 32 of a–z, 0–9, _ and -, starting with a letter or digit.";
      else if (taken.includes(newId)) e.id = `There is a provider ${newId} already: use its Edit button to change it.`;
    }
    if (!model.trim()) e.model = "Enter the model sessions use when they pick none of their own.";
    if (keyEnv.trim() && !ENV_PATTERN.test(keyEnv.trim())) e.api_key_env = "Use letters, digits and _, not starting with a digit.";
    return e;
  };

  const put = useAction(
    async () => {
      const saved = await api.putProviderById(existing?.id ?? id.trim(), {
        kind,
        base_url: baseUrl.trim() || null,
        model: model.trim(),
        ...(apiKey ? { api_key: apiKey } : {}),
        api_key_env: keyEnv.trim() || null,
        api_mode: kind === "openai" ? apiMode : null,
      });
      setApiKey("");
      onSaved(saved);
    },
    { message: (e) => `Not saved: ${errorText(e)}` },
  );
  const busy = put.busy;

  const save = (ev: Event) => {
    ev.preventDefault();
    if (busy) return;
    const found = check();
    setErrors(found);
    put.setError(null);
    if (Object.keys(found).length > 0) {
      const firstBad = (["id", "model", "api_key_env"] as Field[]).find((f) => found[f]);
      document.getElementById(`${uid}-${firstBad}`)?.focus();
      return;
    }
    void put.run();
  };

  /** The input's id and what describes it (its hint, its error), for screen readers. */
  const described = (f: Field, hint?: string) => {
    const ids = [hint && `${uid}-${f}-hint`, errors[f] && `${uid}-${f}-error`].filter(Boolean).join(" ");
    return { id: `${uid}-${f}`, "aria-invalid": !!errors[f], "aria-describedby": ids || undefined };
  };
  /** A field whose label names only the input: its hint and error sit outside the label. */
  const field = (f: Field, label: string, input: ComponentChildren, hint?: ComponentChildren) => (
    <div class="field">
      <label class="field-caption" for={`${uid}-${f}`}>
        {label}
      </label>
      {input}
      {hint && (
        <span class="muted small" id={`${uid}-${f}-hint`}>
          {hint}
        </span>
      )}
      {errors[f] && (
        <span class="field-error error small" id={`${uid}-${f}-error`}>
          {errors[f]}
        </span>
      )}
    </div>
  );

  return (
    <form
      class="settings-form provider-editor"
      aria-label={existing ? `Edit the provider ${existing.id}` : "Add a provider"}
      onSubmit={save}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        onCancel();
      }}
      noValidate
    >
      {!existing &&
        field(
          "id",
          "Id",
          <input
            ref={first}
            name="provider_id"
            value={id}
            spellcheck={false}
            autocomplete="off"
            placeholder="local"
            {...described("id", "hint")}
            onInput={(e) => setId((e.target as HTMLInputElement).value)}
          />,
          <>
            What sessions and <code>/model</code> name it by: a–z, 0–9, _ and -.
          </>,
        )}
      {existing && existing.kind !== "openai" && existing.kind !== "anthropic" && (
        <p class="muted small">
          It runs as <b>{providerKindName(existing.kind, existing.api_mode)}</b> (set when the server started); saving replaces it with the provider below.
        </p>
      )}
      <label class="field">
        <span>Kind</span>
        <select
          ref={existing ? first : undefined}
          name="kind"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value as ProviderKind)}
        >
          {KINDS.map((x) => (
            <option key={x.value} value={x.value}>
              {x.label}
            </option>
          ))}
        </select>
      </label>
      {kind === "openai" && <ApiModeField value={apiMode} onChange={setApiMode} />}
      <label class="field">
        <span>Base URL (empty: the kind's own)</span>
        <input
          name="base_url"
          type="url"
          value={baseUrl}
          placeholder={k.url}
          spellcheck={false}
          onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      {field(
        "model",
        "Model",
        <input
          name="model"
          value={model}
          spellcheck={false}
          autocomplete="off"
          {...described("model")}
          onInput={(e) => setModel((e.target as HTMLInputElement).value)}
        />,
      )}
      <label class="field">
        <span>API key {existing?.api_key_set ? "(set — leave empty to keep it)" : "(optional)"}</span>
        <input
          name="api_key"
          type="password"
          autocomplete="off"
          value={apiKey}
          placeholder={existing?.api_key_set ? "••••••••" : ""}
          onInput={(e) => setApiKey((e.target as HTMLInputElement).value)}
        />
      </label>
      {field(
        "api_key_env",
        "Key from environment variable (optional)",
        <input
          name="api_key_env"
          value={keyEnv}
          spellcheck={false}
          autocomplete="off"
          placeholder={k.keyEnv}
          {...described("api_key_env", "hint")}
          onInput={(e) => setKeyEnv((e.target as HTMLInputElement).value)}
        />,
        <>Read on the server when no key is saved here; empty: {k.keyEnv}.</>,
      )}
      <ProviderTest
        form={() => ({
          ...(existing ? { id: existing.id } : {}),
          kind,
          base_url: baseUrl.trim() || null,
          model: model.trim() || null,
          api_mode: kind === "openai" ? apiMode : null,
          ...(apiKey ? { api_key: apiKey } : {}),
        })}
        current={model}
        noKey={existing?.api_key_set ? "type the key again for a changed address" : null}
        onPick={setModel}
      />
      <div class="row">
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Saving…" : existing ? "Save" : "Add provider"}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <FormError error={put.error} />
    </form>
  );
}
