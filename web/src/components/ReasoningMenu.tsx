import { api, errorText } from "../api/client";
import type { ReasoningEffort, Session } from "../api/types";
import { useAction } from "../state/action";
import { upsertSession } from "../state/sessions";
import { FormError } from "./FormError";

const CHOICES: { value: ReasoningEffort | ""; label: string }[] = [
  { value: "", label: "Default" },
  { value: "low", label: "Low" },
  { value: "medium", label: "Medium" },
  { value: "high", label: "High" },
];

/** The effort a choice of the list names ("": none, the model's default). */
function effortOf(value: string): ReasoningEffort | null {
  return CHOICES.find((c) => c.value === value)?.value || null;
}

/**
 * How long a reasoning model thinks before it answers, for this session (from its next model
 * call). Default sends nothing: the model's own. Shows the session as the server last said.
 */
export function ReasoningMenu({ session }: { session: Session }) {
  const change = useAction(
    async (effort: ReasoningEffort | null) => upsertSession(await api.patchSession(session.id, { reasoning_effort: effort })),
    { message: (e) => `Not changed: ${errorText(e)}` },
  );
  return (
    <span class="effort-menu">
      <label title="How long a reasoning model thinks before it answers (for models that take it; Default: the model's own)">
        <span class="effort-label">Reasoning</span>
        <select
          name="reasoning_effort"
          aria-label="Reasoning effort"
          value={session.reasoning_effort ?? ""}
          disabled={change.busy}
          onChange={(e) => void change.run(effortOf((e.target as HTMLSelectElement).value))}
        >
          {CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <FormError error={change.error} small inline />
    </span>
  );
}
