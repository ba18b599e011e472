import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { UsageGroupBy, UsageReport, UsageRow } from "../api/types";
import { linkClick, sessionPath } from "../state/router";
import { tokens, usd } from "../util/format";
import { CapsSettings } from "./CapsSettings";
import "../usage.css";

const GROUPS: Record<UsageGroupBy, { option: string; column: string }> = {
  day: { option: "Day", column: "Day (UTC)" },
  model: { option: "Model", column: "Model" },
  session: { option: "Session", column: "Session" },
};

/** A row's cost: "$0.42", "$0.42 + 2 unpriced calls", or "unpriced" when no call had a price. */
function costCell(r: UsageRow): string {
  if (r.calls > 0 && r.unpriced_calls === r.calls) return "unpriced";
  const cost = usd(r.usage.cost_usd);
  if (r.unpriced_calls === 0) return cost;
  return `${cost} + ${tokens(r.unpriced_calls)} unpriced call${r.unpriced_calls === 1 ? "" : "s"}`;
}

/** The row's name: the day, the model, or the session (a link; a deleted one has no title). */
function RowName({ group, row }: { group: UsageGroupBy; row: UsageRow }) {
  if (group !== "session") return <>{row.key}</>;
  if (row.title == null) return <span class="muted">Deleted session</span>;
  const path = sessionPath(row.key);
  return (
    <a href={path} onClick={(e) => linkClick(e, path)}>
      {row.title || "Untitled session"}
    </a>
  );
}

function Cells({ row }: { row: UsageRow }) {
  const u = row.usage;
  return (
    <>
      <td>{tokens(row.calls)}</td>
      <td>{tokens(u.input_tokens)}</td>
      <td>{tokens(u.cached_input_tokens ?? 0)}</td>
      <td>{tokens(u.output_tokens)}</td>
      <td data-cost-usd={u.cost_usd ?? ""}>{costCell(row)}</td>
    </>
  );
}

/** Settings → Usage: model calls, tokens and cost over the last 30 days, and the spend caps. */
export function UsagePanel() {
  const [group, setGroup] = useState<UsageGroupBy>("day");
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.usageReport(group).then(
      (r) => {
        if (!live) return;
        setReport(r);
        setError(null);
      },
      (e) => live && setError(`Could not load the usage: ${errorText(e)}`),
    );
    return () => {
      live = false;
    };
  }, [group]);

  // Shown only once it is the answer for the group chosen (the table's first column depends on it).
  const shown = report && report.group === group ? report : null;
  return (
    <section class="card usage-panel" id="usage" aria-labelledby="usage-h">
      <h2 id="usage-h">Usage</h2>
      <div class="usage-head">
        <label class="field inline">
          <span>Group by</span>
          <select name="group" value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value as UsageGroupBy)}>
            {(Object.keys(GROUPS) as UsageGroupBy[]).map((g) => (
              <option key={g} value={g}>
                {GROUPS[g].option}
              </option>
            ))}
          </select>
        </label>
        <span class="muted small">Last 30 days · prices from the models table of config.json, else built in</span>
      </div>
      {shown && shown.rows.length === 0 && <p class="muted">No model calls in the last 30 days.</p>}
      {shown && shown.rows.length > 0 && (
        <div class="usage-scroll" role="region" aria-label={`Usage by ${shown.group}`} tabIndex={0}>
          <table class="usage-table" data-group={shown.group}>
            <caption>Model calls over the last 30 days, by {GROUPS[shown.group].option.toLowerCase()}</caption>
            <thead>
              <tr>
                <th scope="col">{GROUPS[shown.group].column}</th>
                <th scope="col">Calls</th>
                <th scope="col">Input</th>
                <th scope="col">Cached</th>
                <th scope="col">Output</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {shown.rows.map((r) => (
                <tr key={r.key} data-key={r.key}>
                  <th scope="row">
                    <RowName group={shown.group} row={r} />
                  </th>
                  <Cells row={r} />
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-key="total">
                <th scope="row">Total</th>
                <Cells row={shown.total} />
              </tr>
            </tfoot>
          </table>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <CapsSettings />
    </section>
  );
}
