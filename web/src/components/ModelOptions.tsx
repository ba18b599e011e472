import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ModelInfo, ProviderList, Session } from "../api/types";
import { defaultProvider, effectiveModel, modelLabel } from "../state/providers";

/** What a provider answered when asked for its models (with what its server says of each). */
export type Listing = { status: "loading" } | { status: "ok"; models: ModelInfo[] } | { status: "error"; message: string };

/** What a listed model's row says of it: its window, its size, "no tools". */
export function modelFacts(m: ModelInfo | undefined): string {
  if (!m) return "";
  const parts: string[] = [];
  if (m.context_window) parts.push(`${Math.round(m.context_window / 1024)}k context`);
  if (m.size_bytes) parts.push(`${(m.size_bytes / 1e9).toFixed(1)} GB`);
  if (m.vision) parts.push("images");
  if (m.tools === false) parts.push("no tools");
  return parts.join(" · ");
}

/** One row of the picker. `note` rows (loading, a failure) are disabled options: read, not picked. */
export type ModelOption =
  | { kind: "default" }
  | { kind: "model"; provider: string; model: string }
  | { kind: "note"; provider: string; text: string; failed: boolean }
  | { kind: "custom"; provider: string };

function keyOf(o: ModelOption): string {
  switch (o.kind) {
    case "default":
      return "default";
    case "model":
      return `model:${o.provider}/${o.model}`;
    case "note":
      return `note:${o.provider}`;
    case "custom":
      return `custom:${o.provider}`;
  }
}

/**
 * A provider's rows: the models it listed, then the ones known without asking (its default
 * model, the session's own) when the list lacks them, a note while it loads or when it failed,
 * and "Other model…".
 */
function groupRows(provider: string, listing: Listing | undefined, known: (string | null | undefined)[]): ModelOption[] {
  const models = listing?.status === "ok" ? listing.models.map((m) => m.id) : [];
  for (const m of known) if (m && !models.includes(m)) models.push(m);
  const rows: ModelOption[] = models.map((model) => ({ kind: "model", provider, model }));
  if (!listing || listing.status === "loading") rows.push({ kind: "note", provider, text: "Loading its models…", failed: false });
  else if (listing.status === "error") rows.push({ kind: "note", provider, text: `Could not list its models: ${listing.message}`, failed: true });
  else if (listing.models.length === 0) rows.push({ kind: "note", provider, text: "It lists no models.", failed: false });
  rows.push({ kind: "custom", provider });
  return rows;
}

/**
 * The picker's listbox, grouped by provider (the focus stays on the listbox; the active row is
 * its `aria-activedescendant`), and the field for a model typed by hand under it.
 */
export function ModelOptions({
  id,
  list,
  session,
  listings,
  busy,
  onPick,
}: {
  id: string;
  list: ProviderList;
  session: Session;
  listings: Record<string, Listing>;
  busy: boolean;
  onPick: (o: Extract<ModelOption, { kind: "default" | "model" }>) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const current = effectiveModel(session, list);
  const fallback = defaultProvider(list);
  const groups = list.data.map((p) => ({
    id: p.id,
    kind: p.kind,
    rows: groupRows(p.id, listings[p.id], [p.model, current.provider === p.id ? current.model : null]),
  }));
  const rows: ModelOption[] = [{ kind: "default" }, ...groups.flatMap((g) => g.rows)];
  const selectedKey = current.followsDefault
    ? "default"
    : current.provider && current.model
      ? keyOf({ kind: "model", provider: current.provider, model: current.model })
      : null;
  const [activeKey, setActiveKey] = useState<string>(selectedKey ?? "default");
  const [custom, setCustom] = useState<string | null>(null);
  /** A model that takes no tools, picked once: the warning shows, a second pick uses it. */
  const [warned, setWarned] = useState<string | null>(null);
  const infoOf = (provider: string, model: string): ModelInfo | undefined => {
    const l = listings[provider];
    return l?.status === "ok" ? l.models.find((m) => m.id === model) : undefined;
  };
  const [name, setName] = useState("");
  const keys = rows.map(keyOf);
  const active = Math.max(0, keys.indexOf(activeKey));
  const optionId = (i: number) => `${id}-${i}`;

  // In the same commit as the list shows: a key pressed at once lands here.
  useLayoutEffect(() => box.current?.focus(), []);
  useLayoutEffect(() => {
    if (custom) field.current?.focus();
  }, [custom]);
  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const pick = (o: ModelOption) => {
    if (busy) return;
    if (o.kind === "model" && infoOf(o.provider, o.model)?.tools === false && warned !== keyOf(o)) {
      setWarned(keyOf(o));
      return;
    }
    if (o.kind === "default" || o.kind === "model") onPick(o);
    else if (o.kind === "custom") {
      setName(current.provider === o.provider && current.model ? current.model : "");
      setCustom(o.provider);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    const to = (i: number) => setActiveKey(keys[(i + keys.length) % keys.length]);
    if (e.key === "ArrowDown") to(active + 1);
    else if (e.key === "ArrowUp") to(active - 1);
    else if (e.key === "Home") to(0);
    else if (e.key === "End") to(keys.length - 1);
    else if (e.key === "Enter" || e.key === " ") pick(rows[active]);
    else return;
    e.preventDefault();
  };

  const row = (o: ModelOption) => {
    const i = rows.indexOf(o);
    const key = keys[i];
    const common = {
      id: optionId(i),
      role: "option" as const,
      "aria-selected": key === selectedKey,
      class: `model-opt model-opt-${o.kind}${i === active ? " active" : ""}${o.kind === "note" && o.failed ? " error" : ""}`,
      // Keep the listbox's focus while picking with the mouse.
      onMouseDown: (ev: MouseEvent) => ev.preventDefault(),
      onClick: () => {
        setActiveKey(key);
        pick(o);
      },
    };
    switch (o.kind) {
      case "default":
        return (
          <div key={key} {...common} data-model="">
            Use default <span class="model-opt-hint">{fallback ? modelLabel({ provider: fallback.id, model: fallback.model ?? null }) : "none configured"}</span>
          </div>
        );
      case "model": {
        const facts = modelFacts(infoOf(o.provider, o.model));
        return (
          <li
            key={key}
            {...common}
            data-model={o.model}
            data-no-tools={infoOf(o.provider, o.model)?.tools === false || undefined}
          >
            {o.model}
            {facts && <span class="model-opt-hint"> {facts}</span>}
          </li>
        );
      }
      case "note":
        return (
          <li key={key} {...common} aria-disabled="true">
            {o.text}
          </li>
        );
      case "custom":
        return (
          <li key={key} {...common}>
            Other model for {o.provider}…
          </li>
        );
    }
  };

  return (
    <>
      <div
        ref={box}
        id={id}
        role="listbox"
        class="model-list"
        aria-label="Model for this session"
        aria-busy={busy}
        tabIndex={0}
        aria-activedescendant={optionId(active)}
        onKeyDown={onKey}
      >
        {row(rows[0])}
        {groups.map((g) => (
          <ul key={g.id} role="group" class="model-group" aria-labelledby={`${id}-g-${g.id}`} data-provider={g.id}>
            <li role="presentation" id={`${id}-g-${g.id}`} class="model-group-name">
              {g.id}
            </li>
            {g.rows.map(row)}
          </ul>
        ))}
      </div>
      {warned && (
        <p class="model-warning small" role="alert">
          {warned.replace(/^model:[^/]*\//, "")} takes no tools: its calls will be read from its text (held to a grammar where the
          server can), which small models get wrong more often. Pick it again to use it.
        </p>
      )}
      {custom && (
        <form
          class="model-custom"
          aria-label={`Another model for ${custom}`}
          onSubmit={(e) => {
            e.preventDefault();
            const m = name.trim();
            if (m) onPick({ kind: "model", provider: custom, model: m });
          }}
        >
          <label class="field">
            <span>Model name for {custom}</span>
            <input
              ref={field}
              name="custom_model"
              value={name}
              spellcheck={false}
              autocomplete="off"
              required
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => {
                if (e.key !== "Escape") return;
                // Back to the list, not out of the picker.
                e.preventDefault();
                e.stopPropagation();
                setCustom(null);
                box.current?.focus();
              }}
            />
          </label>
          <div class="row">
            <button type="submit" class="btn small primary" disabled={busy || !name.trim()}>
              Use
            </button>
            <button
              type="button"
              class="btn small ghost"
              onClick={() => {
                setCustom(null);
                box.current?.focus();
              }}
            >
              Back
            </button>
          </div>
        </form>
      )}
    </>
  );
}
