import { useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { ReasoningEffort, Session } from "../api/types";
import { upsertSession } from "../state/sessions";

const CHOICES: { value: ReasoningEffort | ""; label: string }[] = [
  { value: "", label: "Default" },
  { value: "low", label: "Low" },
  { value: "medium", label: "Medium" },
  { value: "high", label: "High" },
];

/**
 * How long a reasoning model thinks before it answers, for this session (from its next model
 * call). Default sends nothing: the model's own. Shows the session as the server last said.
 */
export function ReasoningMenu({ session }: { session: Session }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const change = async (value: string) => {
    setBusy(true);
    setError(null);
    try {
      const effort = value === "" ? null : (value as ReasoningEffort);
      upsertSession(await api.patchSession(session.id, { reasoning_effort: effort }));
    } catch (e) {
      setError(`Not changed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="effort-menu">
      <label title="How long a reasoning model thinks before it answers (for models that take it; Default: the model's own)">
        <span class="effort-label">Reasoning</span>
        <select
          name="reasoning_effort"
          aria-label="Reasoning effort"
          value={session.reasoning_effort ?? ""}
          disabled={busy}
          onChange={(e) => void change((e.target as HTMLSelectElement).value)}
        >
          {CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <span class="error small" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
