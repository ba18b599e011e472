import { useId } from "preact/hooks";
import type { LocalPanel } from "../state/localCommands";
import type { FactGroup } from "../util/sessionFacts";

/**
 * What a command answered in the composer shows over the prompt (`/help`, `/cost`, `/status`):
 * never sent to the model, there until Close or the next send. It scrolls on its own
 * (and so can take the focus, to be scrolled from the keyboard).
 */
export function LocalReply({ panel, onClose }: { panel: LocalPanel; onClose: () => void }) {
  const id = useId();
  return (
    <section class="local-reply" aria-labelledby={id} data-panel={panel.title}>
      <div class="local-reply-head">
        <h2 id={id}>{panel.title}</h2>
        <span class="muted small">Shown here only: nothing was sent to the model.</span>
        <span class="spacer" />
        <button type="button" class="btn small ghost" onClick={onClose}>
          Close
        </button>
      </div>
      <div class="local-reply-body" tabIndex={0} role="group" aria-labelledby={id}>
        {panel.groups.map((g, i) => (
          <Facts key={i} group={g} />
        ))}
      </div>
    </section>
  );
}

function Facts({ group }: { group: FactGroup }) {
  return (
    <>
      {group.heading && <h3>{group.heading}</h3>}
      {group.facts.length === 0 && group.empty && <p class="muted small">{group.empty}</p>}
      {group.facts.length > 0 && (
        <dl class="local-facts">
          {group.facts.map((f) => (
            <div key={f.name} class="local-fact">
              <dt>{f.name}</dt>
              <dd>{f.value}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}
