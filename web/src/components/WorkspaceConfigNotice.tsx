import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../api/client";
import type { WorkspaceConfigView } from "../api/types";
import { useAction } from "../state/action";
import { FormError } from "./FormError";

/** What the page says when the file changed between being shown and being approved. */
const CHANGED = "The file changed since it was shown — review it again.";

/** What a file names no server for, or what an approval does not use: one line each. */
function IgnoredList({ items }: { items: string[] }) {
  return (
    <ul class="mcp-ws-ignored">
      {items.map((i) => (
        <li key={i}>{i}</li>
      ))}
    </ul>
  );
}

/**
 * The pending file: its servers, what is not used, where it is, and the approval of `hash` (the
 * content shown). `children`: what the last approval answered, under the button.
 */
function PendingReview({
  view,
  hash,
  busy,
  onApprove,
  children,
}: {
  view: WorkspaceConfigView;
  hash: string;
  busy: boolean;
  onApprove: (hash: string) => void;
  children?: ComponentChildren;
}) {
  const headId = useId();
  return (
    <section class="mcp-ws-pending" aria-labelledby={headId} data-ws-config="pending">
      <h3 id={headId}>Workspace config to approve</h3>
      <p>
        This workspace's <code>.tradewind/config.json</code> names MCP servers. They are not used until you approve
        this file.
      </p>
      <ul class="mcp-ws-servers">
        {view.servers.map((s) => (
          <li key={s.name} data-ws-server={s.name}>
            <b class="mcp-ws-name">{s.name}</b> <code class="mcp-ws-target">{s.target}</code>
            {s.shadowed && <span class="muted"> (your config.json's server of the same name is used)</span>}
          </li>
        ))}
      </ul>
      {view.ignored.length > 0 && (
        <>
          <h4>Not used even if approved</h4>
          <IgnoredList items={view.ignored} />
        </>
      )}
      <p class="small mcp-ws-path">
        File: <code>{view.path}</code>
      </p>
      <button
        type="button"
        class="btn primary small"
        // aria-disabled, not disabled: the focus stays on the button while the request runs.
        aria-disabled={busy}
        onClick={() => !busy && onApprove(hash)}
      >
        {busy ? "Approving…" : "Approve this file"}
      </button>
      {children}
    </section>
  );
}

/**
 * The workspace's own `.tradewind/config.json`, at the top of Settings → MCP servers. A file
 * that names servers and is not approved is shown for review with its Approve button (which
 * sends the hash of the content shown: a file changed since is refused and shown again); an
 * approved one is a muted line; one that names no server only says what in it is ignored.
 * `onApproved` runs after an approval, for the server list to be read again.
 */
export function WorkspaceConfigNotice({ onApproved }: { onApproved: () => void }) {
  const [view, setView] = useState<WorkspaceConfigView | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [justApproved, setJustApproved] = useState(false);
  const approvedLine = useRef<HTMLParagraphElement>(null);

  const load = () =>
    api.workspaceConfig().then(
      (v) => setView(v),
      (e) => setMessage(`Could not read this workspace's .tradewind/config.json: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);

  // The button goes with the review: the focus moves to the line that replaces it.
  useEffect(() => {
    if (justApproved && view?.approved) approvedLine.current?.focus();
  }, [justApproved, view]);

  const approve = useAction(
    async (hash: string) => {
      setMessage(null);
      try {
        setView(await api.approveWorkspaceConfig(hash));
      } catch (e) {
        // Shown again as it is now (a 409: it changed since it was shown).
        await load();
        throw e;
      }
      setJustApproved(true);
      onApproved();
    },
    { message: (e) => (e instanceof ApiError && e.status === 409 ? CHANGED : errorText(e)) },
  );

  const shown = approve.error ?? message;
  const error = shown && <FormError error={shown} small data-ws-config-error />;
  if (!view?.present) return error || null;

  if (view.approved) {
    return (
      <div class="mcp-ws-approved" data-ws-config="approved">
        <p class="muted small" ref={approvedLine} tabIndex={-1}>
          This workspace's <code>.tradewind/config.json</code> is approved (servers marked workspace).
        </p>
        {view.ignored.length > 0 && (
          <details class="mcp-help">
            <summary>What is not used from it</summary>
            <IgnoredList items={view.ignored} />
          </details>
        )}
        {error}
      </div>
    );
  }

  if (view.servers.length > 0 && view.hash) {
    return (
      <PendingReview view={view} hash={view.hash} busy={approve.busy} onApprove={(h) => void approve.run(h)}>
        {error}
      </PendingReview>
    );
  }

  if (view.ignored.length === 0) return error || null;
  return (
    <div class="muted small mcp-ws-unused" data-ws-config="unused">
      <p>
        This workspace's <code>.tradewind/config.json</code> names no MCP server, so nothing in it is used:
      </p>
      <IgnoredList items={view.ignored} />
      {error}
    </div>
  );
}
