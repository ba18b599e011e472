// The slash commands answered here, never sent to the model: `/help`, `/cost` and `/status`
// read what the server already has and show it in a panel over the prompt; `/new` and
// `/clear` start a session like this one; `/model NAME` is checked against the provider's list.
import { api, errorText } from "../api/client";
import type { Session } from "../api/types";
import { type Fact, type FactGroup, costFacts, statusFacts } from "../util/sessionFacts";
import { effectiveModel, modelLabel, refreshProviders } from "./providers";
import { navigate, sessionPath } from "./router";
import { upsertSession } from "./sessions";

/** What a local command shows over the prompt. */
export type LocalPanel = { kind: "facts"; title: string; groups: FactGroup[] };

const one = (title: string, facts: Fact[]): LocalPanel => ({ kind: "facts", title, groups: [{ heading: null, facts }] });

/** `/cost`: the session's usage and spend (`GET /api/sessions/{id}/usage`). */
export async function costPanel(session: Session): Promise<LocalPanel> {
  return one("Cost of this session", costFacts(await api.sessionUsage(session.id)));
}

/**
 * `/status`: the session as the server has it now, with its context fill, its queue and the
 * server's version. Only the session itself must be read; each other part says when it is not known.
 */
export async function statusPanel(session: Session): Promise<LocalPanel> {
  const quiet = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);
  const [fresh, list, usage, queue, health] = await Promise.all([
    api.getSession(session.id),
    quiet(refreshProviders()),
    quiet(api.sessionUsage(session.id)),
    quiet(api.queue(session.id)),
    quiet(api.health()),
  ]);
  upsertSession(fresh);
  const m = effectiveModel(fresh, list);
  return one(
    "Status",
    statusFacts({
      session: fresh,
      model: modelLabel(m),
      followsDefault: m.followsDefault,
      context: usage?.context ?? null,
      queued: queue ? queue.data.length : null,
      version: health?.version ?? null,
    }),
  );
}

/**
 * `/new` and `/clear`: a new session in the same workspace, with the same agent, mode and model
 * (its provider, model and reasoning effort), opened at once; this one stays in the list.
 */
export async function startLike(session: Session): Promise<Session> {
  let s = await api.createSession({ workspace: session.workspace, agent: session.agent, mode: session.mode });
  upsertSession(s);
  const model = {
    ...(session.provider ? { provider: session.provider } : {}),
    ...(session.model ? { model: session.model } : {}),
    ...(session.reasoning_effort ? { reasoning_effort: session.reasoning_effort } : {}),
  };
  if (Object.keys(model).length > 0) {
    try {
      s = await api.patchSession(s.id, model);
      upsertSession(s);
    } catch (e) {
      throw new Error(`A new session was started (it is in the list), but not on this session's model: ${errorText(e)}`);
    }
  }
  navigate(sessionPath(s.id));
  return s;
}

/** How many of a provider's models a refusal names. */
const NAMED = 8;

/**
 * Whether `provider` has `model`, as its list says: null when it lists it; a warning (the model
 * is set all the same) when the list is empty or cannot be read. A model it does not list throws.
 * Ollama's `NAME` stands for `NAME:latest`.
 */
export async function checkModel(provider: string | null, model: string): Promise<string | null> {
  const who = provider ?? "the provider";
  let ids: string[];
  try {
    ids = (await api.models(provider ?? undefined)).data.map((m) => m.id);
  } catch (e) {
    return `${who}'s model list could not be read (${errorText(e)}), so ${model} was not checked`;
  }
  if (ids.length === 0) return `${who} lists no models, so ${model} was not checked`;
  if (ids.some((id) => id === model || id === `${model}:latest`)) return null;
  const named = ids.slice(0, NAMED).join(", ") + (ids.length > NAMED ? ` and ${ids.length - NAMED} more` : "");
  throw new Error(`${who} has no model ${model} (it lists ${named}). The model was not changed.`);
}
