import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { SpendCaps } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";

type CapField = "session_usd" | "day_usd";

/** A cap as typed: empty is no cap; "$5", "1,000.50" are read as dollars; null when unreadable. */
export function parseCap(typed: string): { ok: true; value: number | null } | { ok: false } {
  const t = typed.replace(/[$,\s]/g, "");
  if (t === "") return { ok: true, value: null };
  const v = Number(t);
  return /^\d*\.?\d*$/.test(t) && Number.isFinite(v) ? { ok: true, value: v } : { ok: false };
}

const BAD = "Enter an amount in US dollars (0 or more), or leave it empty for no cap.";

function CapInput({
  field,
  label,
  value,
  error,
  onInput,
}: {
  field: CapField;
  label: string;
  value: string;
  error: string | undefined;
  onInput: (v: string) => void;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <input
        name={field}
        type="text"
        inputMode="decimal"
        autocomplete="off"
        placeholder="no cap"
        value={value}
        aria-invalid={error !== undefined}
        aria-describedby={error ? `${field}-error` : undefined}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
      {error && (
        <span class="error small" id={`${field}-error`}>
          {error}
        </span>
      )}
    </label>
  );
}

/**
 * The server-wide spend caps (`PUT /api/usage/caps`): per session (unless a session has its own)
 * and per UTC day for all sessions together. Empty: no cap.
 */
export function CapsSettings() {
  const [values, setValues] = useState<Record<CapField, string>>({ session_usd: "", day_usd: "" });
  const [errors, setErrors] = useState<Partial<Record<CapField, string>>>({});
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const put = useAction(
    async (caps: SpendCaps) => {
      setStatus(null);
      const c = await api.putSpendCaps(caps);
      setValues({ session_usd: c.session_usd == null ? "" : String(c.session_usd), day_usd: c.day_usd == null ? "" : String(c.day_usd) });
      setStatus({ ok: true, text: "Saved." });
    },
    { message: (e) => `Not saved: ${errorText(e)}` },
  );
  const busy = put.busy;

  useEffect(() => {
    api.spendCaps().then(
      (c) => setValues({ session_usd: c.session_usd == null ? "" : String(c.session_usd), day_usd: c.day_usd == null ? "" : String(c.day_usd) }),
      (e) => setStatus({ ok: false, text: `Could not load the spend caps: ${errorText(e)}` }),
    );
  }, []);

  const set = (field: CapField) => (v: string) => {
    setValues((x) => ({ ...x, [field]: v }));
    setErrors((x) => ({ ...x, [field]: undefined }));
    setStatus(null);
    put.setError(null);
  };

  const save = (e: Event) => {
    e.preventDefault();
    const session = parseCap(values.session_usd);
    const day = parseCap(values.day_usd);
    const errs: Partial<Record<CapField, string>> = {};
    if (!session.ok) errs.session_usd = BAD;
    if (!day.ok) errs.day_usd = BAD;
    setErrors(errs);
    if (!session.ok || !day.ok) {
      setStatus(null);
      put.setError("Not saved: check the amounts.");
      return;
    }
    void put.run({ session_usd: session.value, day_usd: day.value });
  };

  return (
    <form class="usage-caps" aria-labelledby="caps-h" noValidate onSubmit={save}>
      <h3 id="caps-h">Spend caps</h3>
      <p class="muted small">
        A run stops before its next model call once a cap is reached; raise the cap and it can go on. A session's own cap
        (set from a stopped run) replaces the per-session one.
      </p>
      <div class="field-row">
        <CapInput field="session_usd" label="Per session (USD)" value={values.session_usd} error={errors.session_usd} onInput={set("session_usd")} />
        <CapInput field="day_usd" label="Per day, all sessions (USD)" value={values.day_usd} error={errors.day_usd} onInput={set("day_usd")} />
      </div>
      <div class="row">
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
        {status && (
          <span class={status.ok ? "ok" : "error"} role={status.ok ? "status" : "alert"}>
            {status.text}
          </span>
        )}
        <FormError error={put.error} inline />
      </div>
    </form>
  );
}
