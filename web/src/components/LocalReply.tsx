import { useId } from "preact/hooks";
import type { LocalPanel } from "../state/localCommands";
import type { FileChanges, FileStep } from "../util/sessionDiff";
import type { FactGroup } from "../util/sessionFacts";
import { DiffView } from "./DiffView";

/**
 * What a command answered in the composer shows over the prompt (`/help`, `/cost`, `/status`,
 * `/diff`): never sent to the model, there until Close or the next send. It scrolls on its own
 * (and so can take the focus, to be scrolled from the keyboard).
 */
export function LocalReply({ panel, onClose }: { panel: LocalPanel; onClose: () => void }) {
  const id = useId();
  return (
    <section class="local-reply" aria-labelledby={id} data-panel={panel.kind === "diff" ? "diff" : panel.title}>
      <div class="local-reply-head">
        <h2 id={id}>{panel.title}</h2>
        <span class="muted small">Shown here only: nothing was sent to the model.</span>
        <span class="spacer" />
        <button type="button" class="btn small ghost" onClick={onClose}>
          Close
        </button>
      </div>
      <div class="local-reply-body" tabIndex={0} role="group" aria-labelledby={id}>
        {panel.kind === "facts" ? (
          panel.groups.map((g, i) => <Facts key={i} group={g} />)
        ) : (
          <Changes files={panel.files} unrecorded={panel.unrecorded} checkError={panel.checkError} />
        )}
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

function Changes({ files, unrecorded, checkError }: { files: FileChanges[]; unrecorded: string[]; checkError: string | null }) {
  return (
    <>
      {files.length === 0 && unrecorded.length === 0 && <p class="local-none">No file was changed in this session.</p>}
      {files.length > 0 && (
        <p class="muted small">
          {files.length === 1 ? "1 file" : `${files.length} files`}, each change as the file tools made it, oldest first.
        </p>
      )}
      {files.map((f) => (
        <section key={f.path} class="local-file" data-path={f.path}>
          <h3>
            <code>{f.path}</code>{" "}
            <span class="diff-stat">
              <span class="add">+{f.added}</span> <span class="del">−{f.removed}</span>
            </span>
          </h3>
          {f.steps.map((s) => (
            <Step key={`${s.kind}-${s.seq}`} step={s} />
          ))}
        </section>
      ))}
      {unrecorded.length > 0 && (
        <section class="local-file local-unrecorded">
          <h3>Changed by commands (no diff recorded)</h3>
          <ul>
            {unrecorded.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
      {checkError && <p class="muted small">Files changed by commands could not be listed: {checkError}</p>}
    </>
  );
}

function Step({ step }: { step: FileStep }) {
  const after = step.prompt ? ` “${short(step.prompt)}”` : "";
  switch (step.kind) {
    case "diff":
      return (
        <>
          <p class="local-step muted small">
            {step.tool}
            {after && `, for${after}`}
          </p>
          <DiffView part={step.part} />
        </>
      );
    case "revert":
      return (
        <p class="local-step small">
          {step.action === "deleted" ? "Deleted" : "Put back"} by a rewind{after && ` to before${after}`}.
        </p>
      );
    case "redo":
      return <p class="local-step small">Brought back by a redo.</p>;
  }
}

/** A prompt's first line, cut to a few words. */
function short(text: string): string {
  const line = text.trim().split("\n")[0];
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
