import type { KeptFile } from "../api/types";
import { changedByText } from "../state/kept";
import { useObservable } from "../state/observable";
import { tickKept } from "../state/revert";
import { sessions } from "../state/sessions";

/**
 * The files a revert or redo leaves as they are, set apart from those it changes: changed by hand
 * or by another session's runs, each with what putting it back would do and who changed it, and a
 * checkbox (unticked at first) to put it back too.
 */
export function RevertKept({ kept, ticked, verb, disabled }: { kept: KeptFile[]; ticked: string[]; verb: string; disabled: boolean }) {
  const list = useObservable(sessions);
  const title = (id: string) => list?.find((s) => s.id === id)?.title ?? null;
  const on = new Set(ticked);
  return (
    <section class="revert-kept" aria-labelledby="revert-kept-title" aria-describedby="revert-kept-desc">
      <h3 id="revert-kept-title">Changed elsewhere, left as they are ({kept.length})</h3>
      <p id="revert-kept-desc" class="muted">
        Not changed by this session’s runs, so the {verb} leaves {kept.length === 1 ? "it" : "them"} alone. Tick a file
        to put it back too.
      </p>
      <ul class="revert-kept-files">
        {kept.map((k, i) => {
          const id = `revert-kept-${i}`;
          return (
            <li key={k.path} data-path={k.path} data-changed-by={k.changed_by}>
              <input
                type="checkbox"
                id={id}
                name="include"
                value={k.path}
                checked={on.has(k.path)}
                disabled={disabled}
                aria-describedby={`${id}-how`}
                onChange={(e) => tickKept(k.path, (e.target as HTMLInputElement).checked)}
              />
              <label for={id}>
                <code>{k.path}</code>
              </label>
              <span id={`${id}-how`} class="revert-kept-how">
                <span class="muted">if ticked:</span>{" "}
                <span class={`badge ${k.action === "deleted" ? "badge-del" : "badge-updated"}`}>{k.action}</span>{" "}
                <span class="muted">· {changedByText(k, title)}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
