import { useEffect, useId, useRef } from "preact/hooks";
import type { McpServerInfo, McpState, McpToolInfo } from "../api/types";
import { VisibleText } from "./VisibleText";

/** What a request of this page is doing to one server right now. */
export type McpAction = "connect" | "disconnect";

/** Each state in words, with a mark that repeats it (the colour is never the only sign). */
const STATE_TEXT: Record<McpState, { mark: string; text: string }> = {
  disabled: { mark: "–", text: "disabled" },
  disconnected: { mark: "○", text: "not connected" },
  connecting: { mark: "…", text: "connecting" },
  connected: { mark: "✓", text: "connected" },
  failed: { mark: "✕", text: "failed" },
  needs_restart: { mark: "↻", text: "needs a reconnect" },
  needs_auth: { mark: "⚿", text: "needs credentials" },
};

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

function ToolList({ tools }: { tools: McpToolInfo[] }) {
  return (
    <details class="mcp-tools">
      <summary>{plural(tools.length, "tool")}</summary>
      <ul>
        {tools.map((t) => (
          <li key={t.name} data-tool={t.name}>
            <span class="mcp-tool-head">
              <code title={t.remote_name !== t.name ? `${t.remote_name} on its server` : undefined}>{t.name}</code>
              {t.hints.map((h) => (
                <span key={h} class={`chip mcp-hint${h === "destructive" ? " mcp-hint-warn" : ""}`} data-hint={h}>
                  {h}
                </span>
              ))}
            </span>
            {t.description && (
              <span class="muted small block mcp-tool-desc">
                <VisibleText text={t.description} />
              </span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The sentence under a server that says what its state means for the user. */
function stateNote(s: McpServerInfo): string | null {
  switch (s.state) {
    case "disabled":
      return "enabled: false in config.json: it is never connected.";
    case "disconnected":
      return "Its tools are listed once it is connected.";
    case "needs_restart":
      return "The server changed its tools since they were listed; they are not offered until you reconnect it.";
    case "needs_auth":
      return 'It asks for credentials: give it a header from an environment variable in config.json ("headers": {"Authorization": "Bearer ${TOKEN}"}), then restart and connect.';
    default:
      return null;
  }
}

/**
 * One configured MCP server: name, state, where it runs, its tools, and Connect / Reconnect /
 * Disconnect. `busy` is the request in flight for it; `requestError` what the last one answered.
 */
export function McpServerItem({
  server: s,
  blocked,
  busy,
  requestError,
  onConnect,
  onDisconnect,
}: {
  server: McpServerInfo;
  blocked: boolean;
  busy: McpAction | null;
  requestError: string | null;
  onConnect: () => void;
  onDisconnect: () => void;
}) {
  const state: McpState = busy === "connect" ? "connecting" : s.state;
  const badge = STATE_TEXT[state];
  const live = s.state === "connected" || s.state === "needs_restart";
  const canAct = !blocked && busy === null && s.state !== "disabled" && s.state !== "connecting";
  // Only the action that applies to the server's state is offered: Disconnect while it is
  // connected, else Connect (Reconnect when its tools changed and it must connect again).
  const canConnect = canAct && s.state !== "connected";
  const canDisconnect = canAct && s.state === "connected";
  const connectButton = useRef<HTMLButtonElement>(null);
  const disconnectButton = useRef<HTMLButtonElement>(null);
  // The request done, the button that has the focus may no longer apply: the focus moves to the
  // one that does (Disconnect after a connect, Connect after a disconnect).
  useEffect(() => {
    if (busy !== null) return;
    const at = document.activeElement;
    if (at === connectButton.current && !canConnect && canDisconnect) disconnectButton.current?.focus();
    else if (at === disconnectButton.current && !canDisconnect && canConnect) connectButton.current?.focus();
  }, [busy, s.state]);
  // A failed connect answers with the same message the server keeps as its error: shown once,
  // and not while the next attempt runs.
  const failure = busy === null && s.state === "failed" && s.error ? s.error : null;
  const errors = [failure, requestError !== failure ? requestError : null].filter((e): e is string => !!e);
  const connectText = busy === "connect" ? "Connecting" : s.state === "needs_restart" ? "Reconnect" : "Connect";
  const disconnectText = busy === "disconnect" ? "Disconnecting" : "Disconnect";
  const headId = useId();
  const note = blocked ? null : stateNote(s);

  return (
    <li class="mcp-server" data-mcp-server={s.name} data-state={state} aria-labelledby={headId}>
      <div class="mcp-head">
        <h3 id={headId}>{s.name}</h3>
        {s.source === "workspace" && (
          <span class="chip mcp-source" data-source="workspace" title="From this workspace's approved .tradewind/config.json">
            workspace
          </span>
        )}
        {s.source === "plugin" && (
          <span class="chip mcp-source" data-source="plugin" title="From an enabled plugin (Settings → Plugins)">
            plugin
          </span>
        )}
        <span class={`badge mcp-state mcp-state-${state}`} data-testid="mcp-state">
          <span aria-hidden="true">{badge.mark} </span>
          {badge.text}
        </span>
        {s.state !== "disabled" && (
          // aria-disabled, not disabled: a focused button keeps the focus while its request runs.
          <span class="mcp-actions">
            <button
              ref={connectButton}
              type="button"
              class={`btn small${canConnect ? " primary" : ""}`}
              aria-label={`${connectText} ${s.name}`}
              aria-disabled={!canConnect}
              onClick={() => canConnect && onConnect()}
            >
              {busy === "connect" ? `${connectText}…` : connectText}
            </button>
            <button
              ref={disconnectButton}
              type="button"
              class="btn small"
              aria-label={`${disconnectText} ${s.name}`}
              aria-disabled={!canDisconnect}
              onClick={() => canDisconnect && onDisconnect()}
            >
              {busy === "disconnect" ? `${disconnectText}…` : disconnectText}
            </button>
          </span>
        )}
      </div>
      <p class="mcp-where small">
        <span class="chip">{s.transport}</span>{" "}
        <code class="mcp-target" title={s.target}>
          {s.target}
        </code>
      </p>
      {s.server_info && (
        <p class="muted small mcp-info">
          {s.state === "connected" ? "Server" : "Last connected to"}: <VisibleText text={s.server_info} />
        </p>
      )}
      {note && <p class="muted small mcp-note">{note}</p>}
      {errors.length > 0 && (
        <div class="error mcp-error" role="alert">
          {errors.map((e) => (
            <p key={e}>
              {e === failure && <span class="visually-hidden">{s.name} failed: </span>}
              <VisibleText text={e} />
            </p>
          ))}
        </div>
      )}
      {live && s.tools.length > 0 && <ToolList tools={s.tools} />}
      {live && s.tools.length === 0 && <p class="muted small">Connected, but it offers no tools.</p>}
    </li>
  );
}
