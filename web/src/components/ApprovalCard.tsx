import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { ApprovalDecision, ApprovalRequestedEvent } from "../api/types";
import { useAction } from "../state/action";
import { ARIA_KEYS, approvalCardShortcut, focusPlace, useApprovalKeys } from "../state/keys";
import { DenyReason } from "./DenyReason";
import { FormError } from "./FormError";
import { InlineCode } from "./InlineCode";
import { ToolInput } from "./ToolInput";
import { useScrollFocus } from "./useScrollFocus";
import { VisibleText } from "./VisibleText";
import { sentence } from "../util/format";
import { approvalHeadline, reasonText } from "../util/approvalText";
import "../steer.css";
import "../keys.css";
import "../polish.css";

/**
 * What the card shows: an `approval_requested` event, or a subagent's pending approval as
 * `GET /api/sessions/{id}/pending` lists it (with the same details: reasons, warnings, directory,
 * prefix).
 */
export type ApprovalAsk = Pick<ApprovalRequestedEvent, "tool" | "effect" | "reason" | "input" | "scope"> &
  Partial<Pick<ApprovalRequestedEvent, "reasons" | "warnings" | "directory" | "prefix" | "session_keeps">>;

/** An approval as the card needs it (`ApprovalState` is one). */
export interface ApprovalView {
  id: string;
  event: ApprovalAsk;
  decision: string | null;
  /** What the user told the agent with a denial. */
  reason?: string | null;
  expired: boolean;
}

/** The prefix an approval offers to allow (`git status …`), as typed. */
function prefixOf(e: ApprovalAsk): string | null {
  return e.prefix && e.prefix.length > 0 ? e.prefix.join(" ") : null;
}

/** What "for this session" keeps, in the server's words ("every command (process)"); empty: this call only. */
function keepsOf(e: ApprovalAsk): string {
  return (e.session_keeps ?? []).join(", ");
}

/** What a decided approval allowed (or that it was denied, and what the agent was told), in words. */
function decidedWords(a: ApprovalView): ComponentChildren {
  const e = a.event;
  const prefix = prefixOf(e);
  switch (a.decision) {
    case null:
      return "No longer needed";
    case "once":
      return "Allowed once";
    case "session":
      return keepsOf(e) ? `Allowed ${keepsOf(e)} for this session` : "Allowed for this session";
    case "directory":
      return e.directory ? (
        <>
          Allowed this directory: <code><VisibleText text={e.directory} /></code>
        </>
      ) : (
        "Allowed this directory"
      );
    case "prefix":
    case "prefix_workspace": {
      const where = a.decision === "prefix" ? "in this session" : "in this workspace";
      return prefix ? (
        <>
          Allowed <code><VisibleText text={prefix} /> …</code> {where}
        </>
      ) : (
        `Allowed commands like this ${where}`
      );
    }
    case "deny":
      return a.reason ? (
        <>
          Denied: <span class="approval-done-reason"><VisibleText text={a.reason} /></span>
        </>
      ) : (
        "Denied"
      );
    case "expired":
      return a.reason ? sentence(a.reason) : "Expired";
    default:
      return a.decision;
  }
}

/** The card goes with the event that follows the decision (`approval_decided`, or a subagent's `child_pending`). */
export function ApprovalCard({ approval, inline = false }: { approval: ApprovalView; inline?: boolean }) {
  // The card goes with the event that records the decision: busy until then.
  const decision = useAction((d: ApprovalDecision, reason?: string) => api.decideApproval(approval.id, d, reason), { stayBusy: true });
  /** "Deny, and tell the agent…" is open. */
  const [telling, setTelling] = useState(false);
  const tellButton = useRef<HTMLButtonElement>(null);
  const busy = decision.busy;
  const decide = decision.run;
  const e = approval.event;
  const pending = approval.decision === null && !approval.expired;
  const prefix = prefixOf(e);
  const keeps = keepsOf(e);
  // Keys answer through the same decision as the buttons: Ctrl+Enter from anywhere (state/keys),
  // and on the focused card Enter or A (allow once), D or Esc (deny).
  const answer = (d: "once" | "deny") => {
    if (!busy) void decide(d);
  };
  useApprovalKeys(approval.id, pending, answer);
  // A long command or file preview scrolls in the card: reachable with the keyboard too.
  const scrollRoot = useScrollFocus<HTMLElement>("Details of the call");
  const onKeyDown = (ev: KeyboardEvent) => {
    const t = ev.target as HTMLElement;
    const d = approvalCardShortcut(ev, t === ev.currentTarget, focusPlace(t) !== "none");
    if (!d) return;
    ev.preventDefault();
    ev.stopPropagation();
    answer(d);
  };
  const keysId = `approval-keys-${approval.id}`;
  const headline = approvalHeadline(e);

  if (!pending && inline) {
    const denied = approval.decision === "deny";
    return (
      <div class={`approval-done ${denied ? "denied" : ""}`} data-approval-id={approval.id}>
        <span class="approval-done-icon" aria-hidden="true">{denied ? "✕" : approval.decision === "expired" || !approval.decision ? "–" : "✓"}</span>
        <span>
          {decidedWords(approval)} — <b>{e.tool}</b> ({e.effect})
        </span>
      </div>
    );
  }
  if (!pending) return null;

  return (
    <section
      class="approval-card"
      ref={scrollRoot}
      role="group"
      aria-label={`Approval needed: ${e.tool}`}
      aria-describedby={keysId}
      data-approval-id={approval.id}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <header class="approval-head">
        <span class="approval-icon" aria-hidden="true">!</span>
        <span class="approval-sentence">
          {headline.text}
          {headline.subject ? (
            <>
              : <code class="approval-subject"><VisibleText text={headline.subject} newlines /></code>
            </>
          ) : (
            "."
          )}
        </span>
        <span class="approval-tool muted small" title="The tool it would call">
          {e.tool}
        </span>
      </header>
      {e.reasons && e.reasons.length > 1 ? (
        <ul class="approval-reasons" aria-label="Why it asks">
          {e.reasons.map((r, i) => (
            <li key={i}><InlineCode text={reasonText(r)} /></li>
          ))}
        </ul>
      ) : (
        e.reason && <p class="approval-reason"><InlineCode text={reasonText(e.reason)} /></p>
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
      {/* The narrowest grant first, and the default (primary); the broad one names all it keeps. */}
      <div class="approval-actions">
        {prefix && (
          <>
            <button
              type="button"
              class="btn primary"
              disabled={busy}
              title="Allow every command that starts with these words, in this session"
              onClick={() => void decide("prefix")}
            >
              Allow <code><VisibleText text={prefix} /> …</code> in this session
            </button>
            <button
              type="button"
              class="btn"
              disabled={busy}
              aria-label={`Allow ${prefix} … in this workspace`}
              title="Allow every command that starts with these words, in every session of this workspace"
              onClick={() => void decide("prefix_workspace")}
            >
              … in this workspace
            </button>
          </>
        )}
        <button
          type="button"
          class={prefix ? "btn" : "btn primary"}
          disabled={busy}
          aria-keyshortcuts={ARIA_KEYS.allowOnce}
          title="A on the card, or Ctrl+Enter from anywhere"
          onClick={() => void decide("once")}
        >
          Allow once
        </button>
        {e.scope === "directory" ? (
          <button type="button" class="btn" disabled={busy} onClick={() => void decide("directory")}>
            Allow this directory
            {e.directory && (
              <>
                : <code class="approval-dir-name"><VisibleText text={e.directory} /></code>
              </>
            )}
          </button>
        ) : (
          keeps && (
            <button type="button" class="btn" disabled={busy} onClick={() => void decide("session")}>
              Allow {keeps} for this session
            </button>
          )
        )}
        <button
          type="button"
          class="btn danger"
          disabled={busy}
          aria-keyshortcuts={ARIA_KEYS.deny}
          title="D or Esc on the card"
          onClick={() => void decide("deny")}
        >
          Deny
        </button>
        <button
          ref={tellButton}
          type="button"
          class="btn ghost"
          disabled={busy}
          aria-expanded={telling}
          onClick={() => setTelling(true)}
        >
          Deny, and tell the agent…
        </button>
        {busy && <span class="muted small">Sending…</span>}
      </div>
      {telling && (
        <DenyReason
          id={approval.id}
          busy={busy}
          onSend={(reason) => void decide("deny", reason)}
          onCancel={() => {
            setTelling(false);
            tellButton.current?.focus();
          }}
        />
      )}
      <p class="muted small approval-keys" id={keysId}>
        Keys on this card: Enter or A allows once, D or Esc denies. Ctrl+Enter allows the oldest waiting call once from anywhere.
      </p>
      <FormError error={decision.error} small />
    </section>
  );
}
