import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import { useAction } from "../state/action";
import { upsertSession } from "../state/sessions";
import { usd } from "../util/format";
import { FormError } from "./FormError";

/** A new cap comfortably above what was spent: half as much again, at least a dollar more, whole dollars. */
export function suggestCap(spent: number): number {
  return Math.ceil(Math.max(spent * 1.5, spent + 1));
}

/** The most a cap may be (the server refuses more). */
const MAX_CAP = 1_000_000;

/**
 * "Raise cap and continue" under a run stopped by a spend cap: the new cap (prefilled above what
 * was spent), set on the session (its own cap) or, for the daily cap, on the server (the session
 * cap kept as it is); then the run is resumed.
 */
export function SpendCapForm({
  runId,
  sessionId,
  daily,
  onResumed,
}: {
  runId: string;
  sessionId: string;
  /** The daily cap of all sessions stopped the run, not the session's own. */
  daily: boolean;
  onResumed: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [spent, setSpent] = useState<{ spent: number; cap: number | null } | null>(null);
  const [value, setValue] = useState("");
  // Two steps, each with its own failure: the cap raised, then the run resumed.
  const raise = useAction(async (cap: number) => {
    try {
      if (daily) {
        const caps = await api.spendCaps();
        await api.putSpendCaps({ session_usd: caps.session_usd ?? null, day_usd: cap });
      } else {
        upsertSession(await api.patchSession(sessionId, { spend_cap_usd: cap }));
      }
    } catch (err) {
      throw new Error(`The cap could not be raised: ${errorText(err)}`);
    }
    try {
      await api.resumeRun(runId);
    } catch (err) {
      throw new Error(`The cap is now ${usd(cap)}, but the run could not continue: ${errorText(err)}`);
    }
    onResumed();
  });
  const { busy, error, setError } = raise;
  const input = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const ids = `cap-${runId}`;

  useEffect(() => {
    if (!open) return;
    input.current?.focus();
    let live = true;
    api.sessionUsage(sessionId).then(
      (u) => {
        if (!live) return;
        const s = daily ? u.day_spent_usd : (u.usage.cost_usd ?? 0);
        setSpent({ spent: s, cap: (daily ? u.day_cap_usd : u.spend_cap_usd) ?? null });
        setValue((v) => v || suggestCap(s).toFixed(2));
      },
      (e) => live && setError(`What was spent could not be read: ${errorText(e)}`),
    );
    return () => {
      live = false;
    };
  }, [open]);

  const close = () => {
    setOpen(false);
    setError(null);
    requestAnimationFrame(() => opener.current?.focus());
  };

  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const cap = Number(value);
    if (value.trim() === "" || !Number.isFinite(cap) || cap <= 0) {
      setError("Enter the new cap in US dollars, for example 5.00.");
      return;
    }
    if (cap > MAX_CAP) {
      setError(`A cap can be at most ${usd(MAX_CAP)}.`);
      return;
    }
    if (spent && cap <= spent.spent) {
      setError(`Enter more than the ${usd(spent.spent)} already spent, or the run stops again at once.`);
      return;
    }
    void raise.run(cap);
  };

  if (!open) {
    return (
      <div class="run-retry">
        <button type="button" class="btn small" ref={opener} aria-expanded={false} onClick={() => setOpen(true)}>
          Raise cap and continue
        </button>
      </div>
    );
  }

  return (
    <form
      class="spend-cap-form"
      aria-label="Raise the spend cap and continue"
      noValidate
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !busy) {
          e.preventDefault();
          e.stopPropagation();
          close();
        }
      }}
    >
      <label class="field">
        <span>{daily ? "New daily cap for all sessions (USD)" : "New spend cap for this session (USD)"}</span>
        <input
          ref={input}
          name="cap_usd"
          type="number"
          inputMode="decimal"
          min="0"
          step="0.01"
          value={value}
          aria-invalid={error !== null}
          aria-describedby={`${ids}-spent${error ? ` ${ids}-error` : ""}`}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <p class="muted small" id={`${ids}-spent`}>
        {spent
          ? `${daily ? "Spent today by all sessions" : "Spent by this session"}: ${usd(spent.spent)}${
              spent.cap !== null ? ` of a ${usd(spent.cap)} cap` : ""
            }.`
          : "Reading what was spent…"}
      </p>
      <div class="row">
        <button type="submit" class="btn small primary" disabled={busy}>
          {busy ? "Raising…" : "Raise and continue"}
        </button>
        <button type="button" class="btn small ghost" disabled={busy} onClick={close}>
          Cancel
        </button>
      </div>
      <FormError error={error} small id={`${ids}-error`} />
    </form>
  );
}
