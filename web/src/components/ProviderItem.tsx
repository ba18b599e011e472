import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import type { ProviderSource, ProviderView } from "../api/types";
import { providerKindName } from "../util/providerNames";

/** Where a provider comes from, in words, and what that means for changing it. */
const SOURCE: Record<ProviderSource, { text: string; title: string }> = {
  flags: { text: "start flags", title: "Set by the flags the server started with: it comes back at each start with them." },
  config: { text: "config.json", title: "Defined in config.json in the state directory: change or remove it there." },
  settings: { text: "Settings", title: "Added or changed here in Settings (stored on the server)." },
  none: { text: "not configured", title: "No provider is configured." },
};


/** What a request of this page is doing to one provider right now. */
export type ProviderAction = "test" | "default" | "remove";

/** A line under a provider: what its last action came to. */
export interface ProviderNote {
  ok: boolean;
  text: string;
}

/**
 * One configured provider: its id, the Default badge, where it comes from, its kind, base URL,
 * model and whether a key is available (never the key), with Test, Make default, Edit and Remove.
 * `children` is its editor, while open.
 */
export function ProviderItem({
  provider: p,
  busy,
  note,
  editing,
  onTest,
  onMakeDefault,
  onEdit,
  onRemove,
  children,
}: {
  provider: ProviderView;
  busy: ProviderAction | null;
  note: ProviderNote | null;
  editing: boolean;
  onTest: () => void;
  onMakeDefault: () => void;
  onEdit: () => void;
  onRemove: () => void;
  children?: ComponentChildren;
}) {
  const headId = useId();
  const source = SOURCE[p.source];
  const idle = busy === null;
  return (
    <li class="provider" data-provider={p.id} data-source={p.source} data-default={p.default} aria-labelledby={headId}>
      <div class="provider-head">
        <h3 id={headId} tabIndex={-1}>
          {p.id}
        </h3>
        {p.default && <span class="badge provider-default">Default</span>}
        <span class="chip provider-source" data-source={p.source} title={source.title}>
          <span class="visually-hidden">from </span>
          {source.text}
        </span>
        {/* aria-disabled, not disabled: a focused button keeps the focus while its request runs. */}
        <span class="provider-actions">
          <button type="button" class="btn small" aria-label={`Test ${p.id}`} aria-disabled={!idle} onClick={() => idle && onTest()}>
            {busy === "test" ? "Testing…" : "Test"}
          </button>
          {!p.default && (
            <button
              type="button"
              class="btn small provider-make-default"
              aria-label={`Make default: ${p.id}`}
              aria-disabled={!idle}
              onClick={() => idle && onMakeDefault()}
            >
              {busy === "default" ? "Making default…" : "Make default"}
            </button>
          )}
          <button
            type="button"
            class="btn small provider-edit"
            aria-label={`Edit ${p.id}`}
            aria-expanded={editing}
            aria-disabled={!idle}
            onClick={() => idle && onEdit()}
          >
            Edit
          </button>
          <button
            type="button"
            class="btn small danger provider-remove"
            aria-label={`Remove ${p.id}`}
            aria-disabled={!idle}
            onClick={() => idle && onRemove()}
          >
            {busy === "remove" ? "Removing…" : "Remove"}
          </button>
        </span>
      </div>
      <dl class="provider-facts small">
        <dt>Kind</dt>
        <dd data-fact="kind">{providerKindName(p.kind, p.api_mode, p.model_server?.server)}</dd>
        <dt>Base URL</dt>
        <dd data-fact="base_url">{p.base_url ? <code>{p.base_url}</code> : <span class="muted">the kind's own</span>}</dd>
        <dt>Model</dt>
        <dd data-fact="model">{p.model ? <code>{p.model}</code> : <span class="muted">none</span>}</dd>
        <dt>API key</dt>
        <dd data-fact="key">
          {p.api_key_set ? "set" : "not set"}
          {p.api_key_env && (
            <>
              {" "}
              (read from <code>{p.api_key_env}</code>)
            </>
          )}
        </dd>
      </dl>
      {note && (
        <p class={note.ok ? "ok small provider-note" : "error small provider-note"} role={note.ok ? "status" : "alert"}>
          {note.text}
        </p>
      )}
      {children}
    </li>
  );
}
