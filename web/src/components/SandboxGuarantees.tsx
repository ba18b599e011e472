import type { SandboxGuarantee } from "../api/types";
import { guaranteeName, orderGuarantees } from "./guarantees";
import { VisibleText } from "./VisibleText";

/** What the sandbox guarantees on this server: each marked held (✓) or not (✕) in words as well
 *  as the mark, the ones that do not hold first, with a count when any does not. */
export function SandboxGuarantees({ list }: { list: readonly SandboxGuarantee[] }) {
  if (list.length === 0) return null;
  const missing = list.filter((g) => !g.holds).length;
  return (
    <>
      <h3>Sandbox guarantees</h3>
      {missing > 0 && (
        <p class="guarantees-gap small" data-missing={missing}>
          <b>
            {missing} of {list.length} do not hold on this server
          </b>{" "}
          — listed first, each with the reason.
        </p>
      )}
      <ul class="guarantees" aria-label="Sandbox guarantees">
        {orderGuarantees(list).map((g) => (
          <li key={g.id} class={g.holds ? "guarantee holds" : "guarantee missing"} data-guarantee={g.id} data-holds={String(g.holds)}>
            <span class="mark" aria-hidden="true">
              {g.holds ? "✓" : "✕"}
            </span>
            <span class="visually-hidden">{g.holds ? "Holds: " : "Does not hold: "}</span>
            <span>
              <b>{guaranteeName(g.id)}</b>
              <span class="muted">
                {" "}
                — <VisibleText text={g.detail} />
              </span>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
