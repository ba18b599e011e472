import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { GrantInfo, SessionPermissions, ToolStatusList } from "../api/types";
import { useAction } from "../state/action";
import { closePermissions } from "../state/panels";
import { FormError } from "./FormError";
import { SandboxGuarantees } from "./SandboxGuarantees";
import { VisibleText } from "./VisibleText";

/** What this session may do without asking: the server's ceiling, the sandbox and what it
 *  guarantees here, every grant and rule (revocable) and each tool's status. */
export function PermissionsPanel({ sessionId, refreshKey }: { sessionId: string; refreshKey: number }) {
  const [perm, setPerm] = useState<SessionPermissions | null>(null);
  const [tools, setTools] = useState<ToolStatusList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [n, setN] = useState(0);
  // Esc from inside the panel closes it; the focus goes back to what opened it.
  const opener = useRef(document.activeElement);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    closePermissions();
    const back = opener.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
  };

  useEffect(() => {
    let stale = false;
    Promise.all([api.permissions(sessionId), api.tools(sessionId)])
      .then(([p, t]) => {
        if (stale) return;
        setPerm(p);
        setTools(t);
        setError(null);
      })
      .catch((e) => !stale && setError(errorText(e)));
    return () => {
      stale = true;
    };
  }, [sessionId, refreshKey, n]);

  const revoke = useAction(async (g: GrantInfo) => {
    await api.revokeGrant(sessionId, g.key, g.scope);
    setN((x) => x + 1);
  });

  const flag = (on: boolean, name: string) => (
    <li class={on ? "on" : "off"}>
      <span aria-hidden="true">{on ? "✓" : "–"}</span> --allow-{name}
    </li>
  );

  return (
    <section class="permissions-panel" aria-label="Permissions" onKeyDown={onKeyDown}>
      <header class="panel-head">
        <h2>Permissions</h2>
        <button type="button" class="btn small ghost" onClick={() => setN((x) => x + 1)}>
          Refresh
        </button>
        <button type="button" class="btn small ghost" aria-label="Close permissions" title="Esc" onClick={closePermissions}>
          ✕
        </button>
      </header>
      <FormError error={error ?? revoke.error} small />
      {perm && (
        <>
          <p class="muted small">
            Mode <b>{perm.mode}</b>, agent <b>{perm.agent}</b>
            {perm.read_only && <> · server is <b>read-only</b></>}
            {perm.yolo && <> · server runs with <b>--yolo</b></>}
          </p>
          <h3>Server ceiling</h3>
          <ul class="ceiling">
            {flag(perm.ceiling.write, "write")}
            {flag(perm.ceiling.process, "process")}
            {flag(perm.ceiling.external, "external")}
          </ul>
          <p class="sandbox-status small">
            Sandbox:{" "}
            <b data-jail={perm.sandbox.jail}>
              {!perm.sandbox.active
                ? "off"
                : perm.sandbox.jail === "bwrap"
                  ? "jail (bubblewrap)"
                  : perm.sandbox.jail === "landlock"
                    ? "Landlock fallback"
                    : "on"}
            </b>{" "}
            (network {perm.sandbox.network})
            {perm.sandbox.notes.map((n, i) => (
              <span key={i} class="muted"> · <VisibleText text={n} /></span>
            ))}
          </p>
          <SandboxGuarantees list={perm.sandbox.guarantees ?? []} />
          <h3>Granted</h3>
          {perm.grants.length === 0 ? (
            <p class="muted small">Nothing granted: everything follows the mode and the ceiling.</p>
          ) : (
            <ul class="grants">
              {perm.grants.map((g) => (
                <li key={`${g.scope}:${g.key}`} class="grant" data-kind={g.kind} data-scope={g.scope}>
                  <span class="grant-label"><VisibleText text={g.label} /></span>
                  <span class="chip">{g.scope}</span>
                  <button
                    type="button"
                    class="btn small danger"
                    disabled={revoke.busy}
                    onClick={() => void revoke.run(g)}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {tools && (
        <details class="tools-status">
          <summary>Tools ({tools.data.filter((t) => t.status === "enabled").length} run without asking)</summary>
          <ul>
            {tools.data.map((t) => (
              <li key={t.name} class={`tool-status ${t.status}`} data-tool={t.name}>
                <code>{t.name}</code> <span class="chip">{t.status}</span>{" "}
                <span class="muted small"><VisibleText text={t.reason} /></span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
