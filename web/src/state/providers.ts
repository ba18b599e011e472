// The configured model providers (`GET /api/providers`), shared by Settings, the session header's
// model picker and `/model`: read when one of them needs it and after each change made here. No
// event tells of a change made elsewhere, so the picker reads the list again each time it opens.
import { api } from "../api/client";
import type { ProviderList, ProviderView, Session } from "../api/types";
import { Observable } from "./observable";

export const providers = new Observable<ProviderList | null>(null);

let reads = 0;
let asked = false;

/** Read the list now (an older read still on its way no longer counts). Rejects when it cannot be read. */
export function refreshProviders(): Promise<ProviderList> {
  const mine = ++reads;
  asked = true;
  return api.providers().then((l) => {
    if (mine === reads) providers.set(l);
    return l;
  });
}

/** Read the list once if nothing asked for it yet (a failure is retried the next time). */
export function ensureProviders(): void {
  if (providers.get() || asked) return;
  refreshProviders().catch(() => {
    asked = false;
  });
}

/** What a session runs on: its own choice, else the default provider and that one's model. */
export interface EffectiveModel {
  /** The provider's id (null: none is configured). */
  provider: string | null;
  /** The model name (null: not known yet). */
  model: string | null;
  /** The session has no choice of its own: it follows the default. */
  followsDefault: boolean;
}

export function effectiveModel(session: Pick<Session, "provider" | "model">, list: ProviderList | null): EffectiveModel {
  const provider = session.provider ?? list?.default ?? null;
  const entry = list?.data.find((p) => p.id === provider);
  return {
    provider,
    model: session.model ?? entry?.model ?? null,
    followsDefault: session.provider == null && session.model == null,
  };
}

/** `provider/model` as the header shows it. */
export function modelLabel(m: Pick<EffectiveModel, "provider" | "model">): string {
  if (!m.provider) return m.model ?? "no provider";
  return `${m.provider}/${m.model ?? "…"}`;
}

/** The default provider's entry, if any. */
export function defaultProvider(list: ProviderList | null): ProviderView | null {
  return list?.data.find((p) => p.id === list.default) ?? null;
}

/**
 * A request to open the model picker of a session's header (`/model` alone, "Regenerate with
 * another model…"); `n` makes each new; `then` runs once a model is picked (not if the picker
 * closes without one).
 */
export const modelPickerRequest = new Observable<{ session: string; n: number; then?: () => void } | null>(null);
let requests = 0;

export function openModelPicker(sessionId: string, then?: () => void): void {
  modelPickerRequest.set({ session: sessionId, n: ++requests, then });
}
