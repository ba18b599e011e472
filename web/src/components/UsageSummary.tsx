import type { SessionUsage } from "../api/types";
import type { ContextState } from "../state/transcript";
import { useSessionUsage } from "../state/usage";
import { shortTokens, tokens, usd } from "../util/format";
import "../usage.css";

/** The session's cost as it reads in the header: "$0.42", "unpriced", "$0.42 of $5.00". */
function costText(u: SessionUsage): string {
  const priced = u.calls - u.unpriced_calls;
  if (u.calls > 0 && priced === 0) return "unpriced";
  const cost = usd(u.usage.cost_usd);
  // Some calls had no price: what is shown is less than what was spent.
  const plus = u.unpriced_calls > 0 && u.usage.cost_usd != null ? "+" : "";
  return u.spend_cap_usd != null ? `${cost}${plus} of ${usd(u.spend_cap_usd)}` : `${cost}${plus}`;
}

/** What the session's subagents cost (all depths), when priced. */
function subagentCost(u: SessionUsage): string | null {
  const c = u.subagents?.usage.cost_usd;
  return c == null ? null : usd(c);
}

/** The session's own cost and its subagents' together, when both are priced. */
function totalCost(u: SessionUsage): number | null {
  const own = u.usage.cost_usd;
  const sub = u.subagents ? u.subagents.usage.cost_usd : 0;
  return own == null || sub == null ? null : own + sub;
}

/** The session's cap is reached: its next run stops before the first model call. */
function overCap(u: SessionUsage): boolean {
  return u.spend_cap_usd != null && (u.usage.cost_usd ?? 0) >= u.spend_cap_usd;
}

function costTitle(u: SessionUsage): string {
  const x = u.usage;
  const parts = [
    `${tokens(u.calls)} model call${u.calls === 1 ? "" : "s"}`,
    `${tokens(x.input_tokens)} input tokens${x.cached_input_tokens ? ` (${tokens(x.cached_input_tokens)} cached)` : ""}`,
    `${tokens(x.output_tokens)} output tokens`,
  ];
  if (u.unpriced_calls > 0) parts.push(`${tokens(u.unpriced_calls)} without a known price`);
  const sub = u.subagents;
  if (sub) {
    const n = `${sub.sessions} subagent${sub.sessions === 1 ? "" : "s"}`;
    parts.push(`besides: ${n}, ${tokens(sub.calls)} model call${sub.calls === 1 ? "" : "s"}, ${subagentCost(u) ?? "unpriced"}`);
    const total = totalCost(u);
    if (total != null) parts.push(`${usd(total)} with its subagents`);
  }
  if (u.spend_cap_usd != null) {
    parts.push(`spend cap ${usd(u.spend_cap_usd)} (${u.spend_cap_source === "session" ? "this session's own" : "the server's"})`);
    if (overCap(u)) parts.push("reached: the next run stops before its first model call");
  }
  return parts.join(" · ");
}

/** How full the model's context window is: a bar and a percentage, read as a meter. */
export function ContextMeter({ used, window, estimated = false }: { used: number; window: number; estimated?: boolean }) {
  const pct = window > 0 ? Math.round((used / window) * 100) : 0;
  const about = estimated ? "about " : "";
  const why = estimated ? " (estimated from the text: the model's server reports no usage)" : "";
  const level = pct >= 90 ? " full" : pct >= 75 ? " high" : "";
  return (
    <span
      class={`context-meter${level}`}
      role="meter"
      aria-label={`Context ${pct} % of ${shortTokens(window)} tokens`}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.min(pct, 100)}
      aria-valuetext={`${about}${tokens(used)} of ${tokens(window)} tokens`}
      title={`Context: ${about}${tokens(used)} of ${tokens(window)} tokens${why}`}
    >
      <span class="context-bar" aria-hidden="true">
        <span class="context-fill" style={{ width: `${Math.min(pct, 100)}%` }} />
      </span>
      <span class="context-pct" aria-hidden="true">
        {estimated ? "≈" : ""}
        {pct} %
      </span>
    </span>
  );
}

/**
 * The session header's cost and context meter. The cost is the server's sum, read once the
 * transcript has its events and again whenever they change it (`marks`, null until then); the
 * context fill comes straight from those events (`context`), else from the server's last answer.
 */
export function UsageSummary({ sessionId, marks, context }: { sessionId: string; marks: number | null; context: ContextState | null }) {
  const usage = useSessionUsage(sessionId, marks);
  const fill = context ?? (usage?.context ? { tokens: usage.context.context_tokens, window: usage.context.context_window } : null);
  if (!usage && !fill) return null;
  return (
    <span class="usage-summary">
      {usage && (
        <span class={`usage-cost${overCap(usage) ? " over" : ""}`} title={costTitle(usage)} data-cost-usd={usage.usage.cost_usd ?? ""}>
          <span class="visually-hidden">Cost </span>
          {costText(usage)}
        </span>
      )}
      {usage?.subagents && (
        <span class="usage-subagents muted small" data-cost-usd={usage.subagents.usage.cost_usd ?? ""} title={costTitle(usage)}>
          + {subagentCost(usage) ?? "unpriced"} in {usage.subagents.sessions} subagent{usage.subagents.sessions === 1 ? "" : "s"}
        </span>
      )}
      {fill && fill.window > 0 && <ContextMeter used={fill.tokens} window={fill.window} estimated={context?.estimated === true} />}
    </span>
  );
}
