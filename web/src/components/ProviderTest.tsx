import { useId, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { ModelInfo, ProviderTestParams, TestKey } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";
import "../models.css";

/** What a test found: the models listed, the key sent, and whether the form's model is among them. */
interface Found {
  models: ModelInfo[];
  key: TestKey;
  modelListed: boolean | null;
  /** The model the form named when it was tested. */
  model: string;
}

/** Which key the test sent, in words; `noKey`: what to add when none was sent (a saved key not used). */
function keyWords(key: TestKey, noKey: string | null): string {
  if (key === "typed") return "your typed key";
  if (key === "saved") return "the saved key";
  return noKey ? `no key — ${noKey}` : "no key";
}

/**
 * "Test connection" under a provider form: tests what the form says now (`form()`, null when the
 * kind cannot be tested), nothing saved, through `POST /api/providers/test`. Says how many models
 * the server lists and with which key, offers them to fill the model field (`onPick`), and on a
 * refusal says the server's reason.
 */
export function ProviderTest({
  form,
  current,
  noKey,
  onPick,
}: {
  form: () => ProviderTestParams | null;
  /** The form's model now: the list shows it chosen when the server lists it. */
  current: string;
  /** Said after "no key — " when the test sent none though a key is saved (null: nothing to add). */
  noKey: string | null;
  onPick: (model: string) => void;
}) {
  const pickId = useId();
  const [found, setFound] = useState<Found | null>(null);
  const test = useAction(
    async () => {
      setFound(null);
      const params = form();
      if (!params) throw new Error("Only an OpenAI-compatible or Anthropic provider can be tested here.");
      const r = await api.testProvider(params);
      setFound({ models: r.data, key: r.key, modelListed: r.model_listed ?? null, model: params.model?.trim() ?? "" });
    },
    {
      message: (e) =>
        e instanceof ApiError && e.status === 502
          ? `Connection failed: ${e.message}`
          : e instanceof ApiError && e.status !== 0
            ? `Cannot test these settings: ${errorText(e)}`
            : `Connection failed: ${errorText(e)}`,
    },
  );
  const n = found?.models.length ?? 0;

  return (
    <div class="provider-test">
      {/* aria-disabled, not disabled: the focused button keeps the focus while the test runs. */}
      <button type="button" class="btn" aria-disabled={test.busy} onClick={() => !test.busy && void test.run()}>
        {test.busy ? "Testing…" : "Test connection"}
      </button>
      {found && (
        <p class="ok provider-test-result" role="status" data-key={found.key}>
          Connected with {keyWords(found.key, noKey)}: {n} model{n === 1 ? "" : "s"} listed.
          {found.modelListed === false && ` The server does not list “${found.model}”: pick one of its models.`}
        </p>
      )}
      {found && n > 0 && (
        <div class="field">
          <label class="field-caption" for={pickId}>
            Use a model the server lists
          </label>
          <select
            id={pickId}
            name="listed_model"
            value={found.models.some((m) => m.id === current.trim()) ? current.trim() : ""}
            onChange={(e) => onPick((e.target as HTMLSelectElement).value)}
          >
            <option value="" disabled>
              Pick one to fill in the model…
            </option>
            {found.models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </div>
      )}
      <FormError error={test.error} />
    </div>
  );
}
