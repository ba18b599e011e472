import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Goal, GoalBudget } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";

// The goal panel's forms: set a goal, edit its objective, change its budget (and resume). Each
// takes the focus on its first field when it opens, closes with Esc or Cancel, and shows the
// server's refusal in its words, keeping what was typed.

type Field = "turns" | "tokens" | "minutes";

const FIELDS: { name: Field; label: string; min: number; max: number; fallback: string }[] = [
  { name: "turns", label: "Turns", min: 1, max: 1000, fallback: "50" },
  { name: "tokens", label: "Tokens", min: 1000, max: 100_000_000, fallback: "2,000,000" },
  { name: "minutes", label: "Minutes", min: 1, max: 1440, fallback: "120" },
];

type Values = Record<Field, string>;

/** The budget typed (blank parts left out), or why it is not one. */
function readBudget(v: Values): { budget: GoalBudget; error: string | null } {
  const budget: GoalBudget = {};
  for (const f of FIELDS) {
    const raw = v[f.name].replace(/[,_\s]/g, "");
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < f.min || n > f.max) {
      return { budget, error: `${f.label} must be a whole number from ${f.min.toLocaleString("en-US")} to ${f.max.toLocaleString("en-US")}.` };
    }
    budget[f.name] = n;
  }
  return { budget, error: null };
}

function BudgetFields({ values, set, placeholders }: { values: Values; set: (v: Values) => void; placeholders: boolean }) {
  return (
    <div class="goal-budget-fields">
      {FIELDS.map((f) => (
        <label key={f.name} class="goal-field">
          <span>{f.label}</span>
          <input
            name={f.name}
            inputMode="numeric"
            autocomplete="off"
            value={values[f.name]}
            placeholder={placeholders ? f.fallback : undefined}
            onInput={(e) => set({ ...values, [f.name]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
    </div>
  );
}

/** A ref for a form whose first field takes the focus when it opens. */
function useFirstFieldFocus() {
  const root = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => root.current?.querySelector<HTMLElement>("textarea, input")?.focus(), []);
  return root;
}

const escCloses = (onCancel: () => void) => (e: KeyboardEvent) => {
  if (e.key === "Escape") {
    e.preventDefault();
    e.stopPropagation();
    onCancel();
  }
};

/** A new goal: the objective and, optionally, its budget (blank parts take the defaults). */
export function GoalStartForm({ sessionId, onDone, onCancel }: { sessionId: string; onDone: (g: Goal) => void; onCancel: () => void }) {
  const [objective, setObjective] = useState("");
  const [values, setValues] = useState<Values>({ turns: "", tokens: "", minutes: "" });
  const root = useFirstFieldFocus();
  const set = useAction(
    async (budget: GoalBudget) => onDone(await api.setGoal(sessionId, Object.keys(budget).length > 0 ? { objective, budget } : { objective })),
    { message: (e) => `Not set: ${errorText(e)}` },
  );
  const submit = (e: Event) => {
    e.preventDefault();
    if (set.busy) return;
    if (!objective.trim()) {
      set.setError("Write the objective: what the agent should achieve.");
      return;
    }
    const { budget, error: bad } = readBudget(values);
    if (bad) set.setError(bad);
    else void set.run(budget);
  };
  return (
    <form ref={root} class="goal-form" aria-label="Set a goal" onSubmit={submit} onKeyDown={escCloses(onCancel)}>
      <label class="goal-field goal-field-wide">
        <span>Objective</span>
        <textarea name="objective" rows={2} value={objective} onInput={(e) => setObjective((e.target as HTMLTextAreaElement).value)} />
      </label>
      <fieldset class="goal-fieldset">
        <legend>Budget (blank: the default)</legend>
        <BudgetFields values={values} set={setValues} placeholders />
      </fieldset>
      <FormError error={set.error} small />
      <div class="row">
        <button type="submit" class="btn small primary" disabled={set.busy}>
          {set.busy ? "Setting…" : "Start working towards it"}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The objective, edited in place. */
export function GoalObjectiveForm({ goal, onDone, onCancel }: { goal: Goal; onDone: (g: Goal) => void; onCancel: () => void }) {
  const [objective, setObjective] = useState(goal.objective);
  const root = useFirstFieldFocus();
  // The form closes once saved: busy until then.
  const save = useAction(async () => onDone(await api.patchGoal(goal.session, { objective })), {
    message: (e) => `Not saved: ${errorText(e)}`,
    stayBusy: true,
  });
  const submit = (e: Event) => {
    e.preventDefault();
    if (save.busy) return;
    if (!objective.trim()) save.setError("The objective cannot be blank.");
    else void save.run();
  };
  return (
    <form ref={root} class="goal-form" aria-label="Edit the objective" onSubmit={submit} onKeyDown={escCloses(onCancel)}>
      <label class="goal-field goal-field-wide">
        <span>Objective</span>
        <textarea name="objective" rows={3} value={objective} onInput={(e) => setObjective((e.target as HTMLTextAreaElement).value)} />
      </label>
      <FormError error={save.error} small />
      <div class="row">
        <button type="submit" class="btn small primary" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save objective"}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Each budget's limit, changed in place; a goal that is not active can be resumed in the same call. */
export function GoalBudgetForm({
  goal,
  onDone,
  onCancel,
}: {
  goal: Goal;
  onDone: (g: Goal, resumed: boolean) => void;
  onCancel: () => void;
}) {
  const b = goal.budget;
  const [values, setValues] = useState<Values>({ turns: String(b.turns), tokens: String(b.tokens), minutes: String(b.minutes) });
  const stopped = goal.status !== "active";
  const [resume, setResume] = useState(stopped);
  const root = useFirstFieldFocus();
  // The form closes once saved: busy until then.
  const save = useAction(
    async (budget: GoalBudget, resuming: boolean) =>
      onDone(await api.patchGoal(goal.session, resuming ? { budget, status: "active" } : { budget }), resuming),
    { message: (e) => `Not saved: ${errorText(e)}`, stayBusy: true },
  );
  const submit = (e: Event) => {
    e.preventDefault();
    if (save.busy) return;
    const { budget, error: bad } = readBudget(values);
    if (bad) save.setError(bad);
    else void save.run(budget, stopped && resume);
  };
  return (
    <form ref={root} class="goal-form" aria-label="Change the budget" onSubmit={submit} onKeyDown={escCloses(onCancel)}>
      <fieldset class="goal-fieldset">
        <legend>Budget limits</legend>
        <BudgetFields values={values} set={setValues} placeholders={false} />
      </fieldset>
      {stopped && (
        <label class="goal-check">
          <input type="checkbox" name="resume" checked={resume} onChange={(e) => setResume((e.target as HTMLInputElement).checked)} />
          Resume the goal
        </label>
      )}
      <FormError error={save.error} small />
      <div class="row">
        <button type="submit" class="btn small primary" disabled={save.busy}>
          {save.busy ? "Saving…" : stopped && resume ? "Save and resume" : "Save budget"}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
