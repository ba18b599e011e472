import { useId } from "preact/hooks";
import type { PluginInfo } from "../api/types";
import { pluginBundle } from "../util/plugins";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";

/** What a plugin bundles, as one sentence: each part in words, with its names as code. */
function Bundle({ plugin }: { plugin: PluginInfo }) {
  const parts = pluginBundle(plugin);
  if (parts.length === 0) {
    return (
      <p class="small plugin-bundle" data-bundle-empty>
        It bundles nothing this server uses.
      </p>
    );
  }
  return (
    <p class="small plugin-bundle">
      Bundles:{" "}
      {parts.map((part, i) => (
        <span key={part.kind} data-bundle={part.kind}>
          {i > 0 && "; "}
          {part.text}
          {part.names.map((n, j) => (
            <span key={n}>
              {j === 0 ? " " : ", "}
              <code>{n}</code>
            </span>
          ))}
        </span>
      ))}
    </p>
  );
}

/**
 * One installed plugin: its name, version, on/off switch, description, whether it is used, what it
 * bundles, its folder, and what of it cannot be used. `pending`: the state a switch request under
 * way asks for (null: none for this plugin); `busy`: a switch request is under way (for any plugin).
 */
export function PluginItem({
  plugin: p,
  pending,
  busy,
  error,
  onSwitch,
}: {
  plugin: PluginInfo;
  pending: boolean | null;
  busy: boolean;
  error: string | null;
  onSwitch: (enabled: boolean) => void;
}) {
  const headId = useId();
  const descId = useId();
  const on = pending ?? p.enabled;
  return (
    <li class="extension plugin" data-plugin={p.name} data-enabled={String(p.enabled)} aria-labelledby={headId}>
      <div class="extension-head">
        <h3 id={headId}>{p.name}</h3>
        {p.version && (
          <span class="chip plugin-version">
            <span class="visually-hidden">version </span>
            {p.version}
          </span>
        )}
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-label={`Enabled: plugin ${p.name}`}
            checked={on}
            aria-describedby={descId}
            // aria-disabled, not disabled: the focus stays on the switch while its request runs;
            // a click meanwhile changes nothing.
            aria-disabled={busy}
            onClick={(e) => busy && e.preventDefault()}
            onChange={(e) => onSwitch((e.target as HTMLInputElement).checked)}
          />
          <span aria-hidden="true">Enabled</span>
        </label>
      </div>
      <p class="extension-desc" id={descId}>
        {p.description ? <VisibleText text={p.description} /> : <span class="muted">No description.</span>}
      </p>
      {p.enabled ? (
        <p class="small" data-plugin-on>
          On: what it bundles counts from the next run, in every workspace.
        </p>
      ) : (
        <p class="muted small" data-plugin-off>
          Off: none of it is used until you turn it on.
        </p>
      )}
      <Bundle plugin={p} />
      <p class="muted small extension-where">
        Folder: <code>{p.root}</code>
      </p>
      {p.problems.length > 0 && (
        <div class="small plugin-problems" data-plugin-problems>
          What of it cannot be used:
          <ul>
            {p.problems.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </div>
      )}
      <FormError error={error} small />
    </li>
  );
}
