import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ProbedServer, ProviderSettingsUpdate } from "../api/types";
import { useAction } from "../state/action";
import { providerMissing } from "../state/app";
import { FormError } from "./FormError";
import { ProviderForm } from "./ProviderForm";
import { VisibleText } from "./VisibleText";

/** First start, no model provider yet: offer the servers found on loopback, or the manual form. */
export function Setup() {
  const [servers, setServers] = useState<ProbedServer[] | null>(null);
  const [probeError, setProbeError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [fill, setFill] = useState<Partial<ProviderSettingsUpdate> | null>(null);

  const probe = () => {
    setServers(null);
    setProbeError(null);
    api.setupProbe().then(
      (r) => setServers(r.servers),
      (e) => {
        setServers([]);
        setProbeError(errorText(e));
      },
    );
  };
  useEffect(probe, []);

  const use = useAction(async (s: ProbedServer) => {
    const model = picked[s.base_url] ?? s.models[0] ?? "";
    try {
      await api.putProvider({ kind: "openai", base_url: s.base_url, model });
    } catch (e) {
      // Leave it in the form to fix by hand.
      setFill({ kind: "openai", base_url: s.base_url, model });
      throw e;
    }
    providerMissing.set(false);
  });
  const using = use.running?.[0].base_url;

  return (
    <div class="settings setup">
      <h1>Set up a model</h1>
      <p class="muted">Tradewind has no model provider yet. Pick a server running on this machine, or enter one by hand.</p>
      <section class="card">
        <h2>Found on this machine</h2>
        {servers === null && <p class="muted small">Looking for Ollama, llama.cpp, LM Studio and vLLM…</p>}
        {servers && servers.length === 0 && (
          <p class="muted small">
            {probeError ? `Could not look: ${probeError}` : "No OpenAI-compatible server answered on the usual ports (11434, 8080, 1234, 8000)."}
          </p>
        )}
        {servers && servers.length > 0 && (
          <ul class="probe-list">
            {servers.map((s) => (
              <li key={s.base_url} class="probe-item" data-base-url={s.base_url}>
                <div class="probe-main">
                  <b>
                    <VisibleText text={s.name} />
                  </b>{" "}
                  <code class="muted small">
                    <VisibleText text={s.base_url} />
                  </code>
                </div>
                {s.models.length > 0 ? (
                  <select
                    aria-label={`Model on ${s.name}`}
                    value={picked[s.base_url] ?? s.models[0]}
                    onChange={(e) => setPicked({ ...picked, [s.base_url]: (e.target as HTMLSelectElement).value })}
                  >
                    {s.models.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span class="muted small">no models listed</span>
                )}
                <button type="button" class="btn primary small" disabled={use.busy} onClick={() => void use.run(s)}>
                  {using === s.base_url ? "Saving…" : "Use this"}
                </button>
              </li>
            ))}
          </ul>
        )}
        <button type="button" class="btn small ghost" onClick={probe}>
          Look again
        </button>
        <FormError error={use.error} small />
      </section>
      <ProviderForm initial={fill} onSaved={() => providerMissing.set(false)} />
      <p>
        <button type="button" class="linklike small" onClick={() => providerMissing.set(false)}>
          Skip for now
        </button>
      </p>
    </div>
  );
}
