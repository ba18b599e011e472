import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProviderList, Session } from "../api/types";
import { useObservable } from "../state/observable";
import {
  effectiveModel,
  ensureProviders,
  modelLabel,
  modelPickerRequest,
  providers,
  refreshProviders,
} from "../state/providers";
import { useAction } from "../state/action";
import { upsertSession } from "../state/sessions";
import { FormError } from "./FormError";
import { type Listing, ModelOptions, type ModelOption } from "./ModelOptions";
import "../models.css";

/**
 * The session header's model picker: a button showing what the session runs on (`provider/model`:
 * its own choice, else the default provider's), opening a listbox grouped by provider. Each
 * provider's models are asked for when it opens (a provider that cannot list them says why in its
 * group); "Other model…" takes a name typed by hand; "Use default" goes back to following the
 * default. The listbox has the focus while open: arrows move, Enter picks, Esc closes. `/model`
 * alone opens it too.
 */
export function ModelMenu({ session }: { session: Session }) {
  const list = useObservable(providers);
  const request = useObservable(modelPickerRequest);
  const [open, setOpen] = useState(false);
  const [listings, setListings] = useState<Record<string, Listing>>({});
  const [error, setError] = useState<string | null>(null);
  const wrap = useRef<HTMLSpanElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const pop = useRef<HTMLDivElement>(null);
  const listId = useId();
  /** What the request that opened it asked to run once a model is picked. */
  const afterPick = useRef<(() => void) | null>(null);
  const current = effectiveModel(session, list);
  const label = modelLabel(current);

  useEffect(ensureProviders, []);

  // `/model` alone, typed in this session's composer.
  useEffect(() => {
    if (!request || request.session !== session.id) return;
    modelPickerRequest.set(null);
    afterPick.current = request.then ?? null;
    setOpen(true);
  }, [request]);

  // Each opening reads the providers and asks every one for its models again.
  useEffect(() => {
    if (!open) {
      afterPick.current = null;
      return;
    }
    let live = true;
    setError(null);
    choose.setError(null);
    setListings({});
    const ask = (l: ProviderList) => {
      setListings(Object.fromEntries(l.data.map((p) => [p.id, { status: "loading" } as Listing])));
      for (const p of l.data) {
        api.models(p.id).then(
          (r) => live && setListings((m) => ({ ...m, [p.id]: { status: "ok", models: r.data } })),
          (e) => live && setListings((m) => ({ ...m, [p.id]: { status: "error", message: errorText(e) } })),
        );
      }
    };
    refreshProviders().then(
      (l) => live && ask(l),
      (e) => live && setError(`Could not read the providers: ${errorText(e)}`),
    );
    return () => {
      live = false;
    };
  }, [open]);

  // Opened near the window's right edge, the list moves left to stay in view.
  useLayoutEffect(() => {
    const el = pop.current;
    if (!open || !el) return;
    el.style.translate = "";
    const over = el.getBoundingClientRect().right - (document.documentElement.clientWidth - 8);
    if (over > 0) el.style.translate = `${-over}px 0`;
  }, [open]);

  // A press outside closes it (the focus leaving it does too: see onFocusOut).
  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  const close = () => {
    setOpen(false);
    trigger.current?.focus();
  };

  const choose = useAction(
    async (o: Extract<ModelOption, { kind: "default" | "model" }>) => {
      const p = o.kind === "default" ? { provider: null, model: null } : { provider: o.provider, model: o.model };
      upsertSession(await api.patchSession(session.id, p));
      const then = afterPick.current;
      close();
      then?.();
    },
    { message: (e) => `Not changed: ${errorText(e)}` },
  );

  return (
    <span
      class="model-menu"
      ref={wrap}
      onKeyDown={(e) => {
        if (e.key !== "Escape" || !open) return;
        // Esc here closes the picker; it never stops a run.
        e.preventDefault();
        close();
      }}
      onFocusOut={(e) => {
        const to = e.relatedTarget as Node | null;
        if (open && to && !wrap.current?.contains(to)) setOpen(false);
      }}
    >
      <button
        ref={trigger}
        type="button"
        class="model-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        title="The model this session uses (from its next model call)"
        data-model={label}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (!open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        <span class="model-label">Model</span>{" "}
        <span class="model-current">{label}</span>
        <span aria-hidden="true" class="model-caret">
          ▾
        </span>
      </button>
      {open && (
        <div class="model-pop" ref={pop}>
          {list && (
            <ModelOptions
              id={listId}
              list={list}
              session={session}
              listings={listings}
              busy={choose.busy}
              onPick={(o) => void choose.run(o)}
            />
          )}
          {!list && !error && <p class="muted small">Reading the providers…</p>}
          <FormError error={error ?? choose.error} small />
        </div>
      )}
    </span>
  );
}
