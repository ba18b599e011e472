import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProviderList, ProviderView } from "../api/types";
import { providerMissing } from "../state/app";
import { useObservable } from "../state/observable";
import { providers, refreshProviders } from "../state/providers";
import { ProviderEditor } from "./ProviderEditor";
import { type ProviderAction, ProviderItem, type ProviderNote } from "./ProviderItem";
import "../models.css";
import { askConfirm } from "../state/confirm";

/** A copy of `m` without `key`. */
function without<T>(m: Record<string, T>, key: string): Record<string, T> {
  const next = { ...m };
  delete next[key];
  return next;
}

/** Where the focus goes once the list has rendered after an action. */
type FocusTarget = { id: string; on: "head" | "edit" } | "add" | "title";

/**
 * Settings → Model providers: every configured provider side by side, the default marked; add
 * one, edit, test, make default or remove one (a refusal says why under it). Sessions use the
 * default unless they pick their own model in their header or with `/model`.
 */
export function ProvidersPanel() {
  const list = useObservable(providers);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState<Record<string, ProviderAction>>({});
  const [notes, setNotes] = useState<Record<string, ProviderNote>>({});
  const [removed, setRemoved] = useState<string | null>(null);
  const focusNext = useRef<FocusTarget | null>(null);
  const section = useRef<HTMLElement>(null);

  const load = () =>
    refreshProviders().then(
      () => setLoadError(null),
      (e) => setLoadError(`Could not load the providers: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);

  // Move the focus where the last action left it, in the commit that shows the change.
  useLayoutEffect(() => {
    const t = focusNext.current;
    const root = section.current;
    if (!t || !root) return;
    focusNext.current = null;
    const el =
      t === "add"
        ? root.querySelector<HTMLElement>(".providers-add")
        : t === "title"
          ? root.querySelector<HTMLElement>("h2")
          : root.querySelector<HTMLElement>(`[data-provider="${t.id}"] ${t.on === "head" ? "h3" : ".provider-edit"}`);
    el?.focus();
  });

  const setList = (l: ProviderList) => {
    providers.set(l);
    if (l.default) providerMissing.set(false);
  };

  const note = (id: string, n: ProviderNote | null) => setNotes((m) => (n ? { ...m, [id]: n } : without(m, id)));

  const act = async (id: string, action: ProviderAction, run: () => Promise<void>) => {
    setBusy((b) => ({ ...b, [id]: action }));
    note(id, null);
    setRemoved(null);
    try {
      await run();
    } catch (e) {
      note(id, { ok: false, text: `${ACTION_FAILED[action]}: ${errorText(e)}` });
    } finally {
      setBusy((b) => without(b, id));
    }
  };

  const test = (p: ProviderView) =>
    act(p.id, "test", async () => {
      const ids = (await api.models(p.id)).data.map((m) => m.id);
      const shown = ids.length > 0 ? ` (${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", …" : ""})` : "";
      note(p.id, { ok: true, text: `Connected: ${ids.length} model${ids.length === 1 ? "" : "s"} available${shown}.` });
    });

  const makeDefault = (p: ProviderView) =>
    act(p.id, "default", async () => {
      setList(await api.makeDefaultProvider(p.id));
      // What other rows said before no longer holds (the old default's note among them).
      setNotes({ [p.id]: { ok: true, text: "Now the default: sessions without a model of their own use it." } });
      focusNext.current = { id: p.id, on: "head" };
    });

  const remove = async (p: ProviderView) => {
    const ok = await askConfirm({
      title: `Remove the provider ${p.id}?`,
      body: "Its saved key goes with it. Sessions that use it fail until another model is picked for them.",
      confirm: "Remove",
      danger: true,
    });
    if (!ok) return;
    void act(p.id, "remove", async () => {
      await api.deleteProvider(p.id);
      if (editing === p.id) setEditing(null);
      await load();
      setRemoved(p.id);
      focusNext.current = "title";
    });
  };

  const saved = (v: ProviderView, wasNew: boolean) => {
    setEditing(null);
    setAdding(false);
    note(v.id, { ok: true, text: wasNew ? "Added." : "Saved." });
    focusNext.current = { id: v.id, on: "edit" };
    const cur = providers.get();
    // Shown at once from the answer; the list is read again for the default and the rest.
    if (cur) providers.set({ ...cur, data: cur.data.some((p) => p.id === v.id) ? cur.data.map((p) => (p.id === v.id ? v : p)) : [...cur.data, v] });
    void load().then(() => {
      if (providers.get()?.default) providerMissing.set(false);
    });
  };

  const ids = list?.data.map((p) => p.id) ?? [];

  return (
    <section class="card providers" aria-labelledby="providers-h" ref={section}>
      <h2 id="providers-h" tabIndex={-1}>
        Model providers
      </h2>
      <p class="muted small">
        Sessions use the default provider and its model unless they pick their own (the model button in a session's
        header, or <code>/model</code>). Saved keys are never shown again.
      </p>
      {list && list.data.length === 0 && <p data-providers-empty>No provider is configured yet: add one.</p>}
      {list && list.data.length > 0 && (
        <ul class="provider-list">
          {list.data.map((p) => (
            <ProviderItem
              key={p.id}
              provider={p}
              busy={busy[p.id] ?? null}
              note={notes[p.id] ?? null}
              editing={editing === p.id}
              onTest={() => void test(p)}
              onMakeDefault={() => void makeDefault(p)}
              onEdit={() => {
                setAdding(false);
                setEditing(editing === p.id ? null : p.id);
              }}
              onRemove={() => remove(p)}
            >
              {editing === p.id && (
                <ProviderEditor
                  existing={p}
                  taken={ids}
                  onSaved={(v) => saved(v, false)}
                  onCancel={() => {
                    setEditing(null);
                    focusNext.current = { id: p.id, on: "edit" };
                  }}
                />
              )}
            </ProviderItem>
          ))}
        </ul>
      )}
      {removed && (
        <p class="ok small" role="status">
          Removed {removed}.
        </p>
      )}
      {adding ? (
        <ProviderEditor
          existing={null}
          taken={ids}
          onSaved={(v) => saved(v, true)}
          onCancel={() => {
            setAdding(false);
            focusNext.current = "add";
          }}
        />
      ) : (
        <button
          type="button"
          class="btn providers-add"
          onClick={() => {
            setEditing(null);
            setRemoved(null);
            setAdding(true);
          }}
        >
          Add a provider
        </button>
      )}
      {loadError && (
        <p class="error" role="alert">
          {loadError}
        </p>
      )}
    </section>
  );
}

const ACTION_FAILED: Record<ProviderAction, string> = {
  test: "Connection failed",
  default: "Not made the default",
  remove: "Not removed",
};
