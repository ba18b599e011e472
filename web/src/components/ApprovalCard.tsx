import { api } from "../api/client";
import type { ApprovalDecision, ApprovalRequestedEvent } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";
import { InlineCode } from "./InlineCode";
import { ToolInput } from "./ToolInput";
import { VisibleText } from "./VisibleText";

const DECIDED: Record<string, string> = {
  once: "Allowed once",
  session: "Allowed for this session",
  directory: "Allowed for this directory",
  prefix: "Allowed commands like this (session)",
  prefix_workspace: "Allowed commands like this (workspace)",
  deny: "Denied",
  expired: "Expired",
};

/**
 * What the card shows: an `approval_requested` event, or a subagent's pending approval as
 * `GET /api/sessions/{id}/pending` lists it (with the same details: reasons, warnings, directory,
 * prefix).
 */
export type ApprovalAsk = Pick<ApprovalRequestedEvent, "tool" | "effect" | "reason" | "input" | "scope"> &
  Partial<Pick<ApprovalRequestedEvent, "reasons" | "warnings" | "directory" | "prefix">>;

/** An approval as the card needs it (`ApprovalState` is one). */
export interface ApprovalView {
  id: string;
  event: ApprovalAsk;
  decision: string | null;
  expired: boolean;
}

/** The card goes with the event that follows the decision (`approval_decided`, or a subagent's `child_pending`). */
export function ApprovalCard({ approval, inline = false }: { approval: ApprovalView; inline?: boolean }) {
  // The card goes with the event that records the decision: busy until then.
  const decision = useAction((d: ApprovalDecision) => api.decideApproval(approval.id, d), { stayBusy: true });
  const busy = decision.busy;
  const decide = decision.run;
  const e = approval.event;
  const pending = approval.decision === null && !approval.expired;

  if (!pending && inline) {
    return (
      <div class={`approval-done ${approval.decision === "deny" ? "denied" : ""}`} data-approval-id={approval.id}>
        <span class="approval-done-icon" aria-hidden="true">{approval.decision === "deny" ? "✕" : approval.decision === "expired" || !approval.decision ? "–" : "✓"}</span>
        <span>
          {approval.decision ? (DECIDED[approval.decision] ?? approval.decision) : "No longer needed"}:{" "}
          <b>{e.tool}</b> ({e.effect})
        </span>
      </div>
    );
  }
  if (!pending) return null;

  return (
    <section
      class="approval-card"
      role="group"
      aria-label={`Approval needed: ${e.tool}`}
      data-approval-id={approval.id}
    >
      <header class="approval-head">
        <span class="approval-icon" aria-hidden="true">!</span>
        <span>
          <b>{e.tool}</b> wants to use the <span class={`effect effect-${e.effect}`}>{e.effect}</span> effect
        </span>
      </header>
      {e.reasons && e.reasons.length > 1 ? (
        <ul class="approval-reasons" aria-label="Why it asks">
          {e.reasons.map((r, i) => (
            <li key={i}><InlineCode text={r} /></li>
          ))}
        </ul>
      ) : (
        e.reason && <p class="approval-reason"><InlineCode text={e.reason} /></p>
      )}
      {e.warnings && e.warnings.length > 0 && (
        <ul class="warnings">
          {e.warnings.map((w, i) => (
            <li key={i}>⚠ <InlineCode text={w} /></li>
          ))}
        </ul>
      )}
      {e.scope === "directory" && e.directory && (
        <p class="approval-dir">
          Outside the workspace: <code><VisibleText text={e.directory} /></code>
        </p>
      )}
      <ToolInput tool={e.tool} input={e.input} preview />
      <div class="approval-actions">
        <button type="button" class="btn primary" disabled={busy} onClick={() => void decide("once")}>
          Allow once
        </button>
        {e.scope === "directory" ? (
          <button type="button" class="btn" disabled={busy} onClick={() => void decide("directory")}>
            Allow this directory
          </button>
        ) : (
          <button type="button" class="btn" disabled={busy} onClick={() => void decide("session")}>
            Allow for this session
          </button>
        )}
        {e.prefix && e.prefix.length > 0 && (
          <>
            <button
              type="button"
              class="btn"
              disabled={busy}
              title="Allow every command that starts with these words, in this session"
              onClick={() => void decide("prefix")}
            >
              Allow <code><VisibleText text={e.prefix.join(" ")} /> …</code> in this session
            </button>
            <button
              type="button"
              class="btn"
              disabled={busy}
              title="Allow every command that starts with these words, in every session of this workspace"
              onClick={() => void decide("prefix_workspace")}
            >
              … in this workspace
            </button>
          </>
        )}
        <button type="button" class="btn danger" disabled={busy} onClick={() => void decide("deny")}>
          Deny
        </button>
        {busy && <span class="muted small">Sending…</span>}
      </div>
      <FormError error={decision.error} small />
    </section>
  );
}
