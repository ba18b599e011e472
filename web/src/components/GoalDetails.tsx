import type { Goal, GoalReport, GoalStatus } from "../api/types";
import { tokens } from "../util/format";
import { Timestamp } from "./Timestamp";

const STATUS: Record<GoalStatus, { label: string; badge: string }> = {
  active: { label: "active", badge: "badge-running" },
  paused: { label: "paused", badge: "" },
  complete: { label: "complete", badge: "badge-new" },
  blocked: { label: "blocked", badge: "badge-warn" },
  budget_exhausted: { label: "budget exhausted", badge: "badge-warn" },
};

/** Reported complete, but the server could not confirm some of its evidence. */
export function unverified(goal: Goal): boolean {
  const latest = goal.reports.at(-1);
  return goal.status === "complete" && (latest?.unverified?.length ?? 0) > 0;
}

/** Where the goal stands, as a badge ("complete — evidence unverified" when it could not be confirmed). */
export function GoalStatusBadge({ status, unconfirmed = false }: { status: GoalStatus; unconfirmed?: boolean }) {
  const s = STATUS[status] ?? { label: status, badge: "" };
  return (
    <span class={`badge goal-status ${unconfirmed ? "badge-warn" : s.badge}`} data-status={status} data-unverified={unconfirmed ? "" : undefined}>
      {unconfirmed ? `${s.label} — evidence unverified` : s.label}
    </span>
  );
}

/** The reason in a sentence: "The turns budget ran out: …". */
function sentence(reason: string): string {
  const t = reason.trim();
  return t ? t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".") : "";
}

function minutes(m: number): string {
  return m < 10 ? String(Math.round(m * 10) / 10) : String(Math.round(m));
}

/** One budget as a meter and "used of limit unit". */
function Budget({ id, label, used, limit, shown }: { id: string; label: string; used: number; limit: number; shown: (n: number) => string }) {
  return (
    <div class="goal-meter" data-budget={label.toLowerCase()}>
      <label for={id}>{label}</label>
      <meter id={id} min={0} max={limit} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} />
      <span class="goal-meter-text">
        {shown(used)} of {shown(limit)}
      </span>
    </div>
  );
}

function Evidence({ report }: { report: GoalReport }) {
  const why = new Map((report.unverified ?? []).map((u) => [u.index, u.reason]));
  return (
    <ul class="goal-evidence" aria-label={`Evidence of the turn ${report.turn} report`}>
      {report.evidence.map((e, i) => (
        <li key={i} data-kind={e.kind} data-unverified={why.has(i) ? "" : undefined}>
          <span class="chip goal-evidence-kind">{e.kind}</span> <span class="goal-evidence-detail">{e.detail}</span>
          {why.has(i) && <span class="goal-evidence-unverified warn small"> Not verified: {why.get(i)}.</span>}
        </li>
      ))}
    </ul>
  );
}

function Report({ report }: { report: GoalReport }) {
  return (
    <>
      <p class="goal-report-head small">
        Turn {report.turn} · <GoalStatusBadge status={report.status} unconfirmed={(report.unverified?.length ?? 0) > 0} /> · <Timestamp at={report.at} />
      </p>
      <p class="goal-report-summary">{report.summary}</p>
      <Evidence report={report} />
    </>
  );
}

/**
 * What the goal is and where it stands: the objective, why it stopped or paused, each budget
 * used against its limit, the latest report with its evidence, and the earlier reports folded.
 */
export function GoalDetails({ goal, idPrefix }: { goal: Goal; idPrefix: string }) {
  const b = goal.budget;
  const reports = goal.reports;
  const latest = reports.length > 0 ? reports[reports.length - 1] : null;
  const earlier = reports.slice(0, -1).reverse();
  return (
    <div class="goal-details">
      <p class="goal-objective">{goal.objective}</p>
      {goal.reason && <p class="goal-reason">{sentence(goal.reason)}</p>}
      <div class="goal-budget" role="group" aria-label="Budget used">
        <Budget id={`${idPrefix}-turns`} label="Turns" used={b.used_turns} limit={b.turns} shown={String} />
        <Budget id={`${idPrefix}-tokens`} label="Tokens" used={b.used_tokens} limit={b.tokens} shown={tokens} />
        <Budget id={`${idPrefix}-minutes`} label="Minutes" used={b.used_minutes} limit={b.minutes} shown={minutes} />
      </div>
      {latest && (
        <div class="goal-report goal-latest" data-status={latest.status}>
          <p class="goal-report-title">Latest report</p>
          <Report report={latest} />
        </div>
      )}
      {earlier.length > 0 && (
        <details class="goal-history">
          <summary>Earlier reports ({earlier.length})</summary>
          <ol class="goal-history-list">
            {earlier.map((r) => (
              <li key={`${r.turn}-${r.at}`} class="goal-report" data-status={r.status}>
                <Report report={r} />
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
