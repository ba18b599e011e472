import { useEffect, useId, useRef, useState } from "preact/hooks";
import { errorText } from "../api/client";
import type { Session } from "../api/types";
import { useAction } from "../state/action";
import { exportSession } from "../state/export";
import type { ExportFormat } from "../util/export";
import { FormError } from "./FormError";
import "../export.css";

/**
 * The session header's Export: a button that shows two choices, Markdown (a readable transcript,
 * every tool's output whole) and JSON (what `tradewind sessions export` writes and `sessions
 * import` takes back); each reads the session whole and saves it as a file. Esc, a click elsewhere
 * or the focus leaving closes the choices; the focus goes back to the button.
 */
export function ExportMenu({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const wrap = useRef<HTMLSpanElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const popId = useId();
  const save = useAction(
    async (format: ExportFormat) => {
      setSaved(null);
      setSaved(await exportSession(session.id, format));
    },
    { message: (e) => `Not exported: ${errorText(e)}` },
  );

  useEffect(() => {
    if (!open) return;
    first.current?.focus();
    const outside = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const close = () => {
    setOpen(false);
    trigger.current?.focus();
  };
  const pick = (format: ExportFormat) => {
    close();
    void save.run(format);
  };

  return (
    <span
      class="export-menu"
      ref={wrap}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.preventDefault();
          close();
        }
      }}
      onFocusOut={(e) => {
        const to = e.relatedTarget as Node | null;
        if (to && !wrap.current?.contains(to)) setOpen(false);
      }}
    >
      <button
        ref={trigger}
        type="button"
        class="btn small ghost"
        aria-expanded={open}
        aria-controls={open ? popId : undefined}
        // Not `disabled` while it works: the focus stays on it, and a click then does nothing.
        aria-disabled={save.busy}
        onClick={() => !save.busy && setOpen((o) => !o)}
      >
        {save.busy ? "Exporting…" : "Export"}
      </button>
      {open && (
        <div class="export-pop" id={popId} role="group" aria-label="Export this session">
          <button ref={first} type="button" class="btn small ghost" onClick={() => pick("markdown")}>
            Markdown (.md)
          </button>
          <button type="button" class="btn small ghost" onClick={() => pick("json")}>
            JSON (.json)
          </button>
        </div>
      )}
      <span class="visually-hidden" role="status">
        {saved ? `Downloaded ${saved}` : ""}
      </span>
      <FormError error={save.error} small inline />
    </span>
  );
}
