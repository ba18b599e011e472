import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { McpServerInfo, McpServerList } from "../api/types";
import { useReloadOnPluginSwitch } from "../state/plugins";
import { type McpAction, McpServerItem } from "./McpServerItem";
import { WorkspaceConfigNotice } from "./WorkspaceConfigNotice";
import "../mcp.css";

/** How often the list is read again while a server connects on its own (at start, or elsewhere). */
const CONNECTING_POLL_MS = 1000;

const EXAMPLE = `{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"]
    }
  }
}`;

/** A copy of `m` without `key`. */
function without<T>(m: Record<string, T>, key: string): Record<string, T> {
  const next = { ...m };
  delete next[key];
  return next;
}

/** Where servers come from: shown when there is none, folded away under the list otherwise. */
function ConfigHelp() {
  return (
    <>
      <p class="small">
        MCP servers are set in <code>config.json</code> in the state directory (<code>$TRADEWIND_HOME</code>, by
        default <code>~/.tradewind</code>), which the server reads when it starts. A command is run over stdio; a{" "}
        <code>url</code> is a streamable HTTP server. For example:
      </p>
      <pre class="mcp-example">{EXAMPLE}</pre>
    </>
  );
}

/** Settings → MCP servers: the servers of config.json, their state and tools; connect them. */
export function McpPanel() {
  const [list, setList] = useState<McpServerList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Record<string, McpAction>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});

  const load = () =>
    api.mcpServers().then(
      (l) => {
        setList(l);
        setLoadError(null);
      },
      (e) => setLoadError(`Could not load the MCP servers: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);
  // A plugin switched on adds its servers, one switched off takes them away.
  useReloadOnPluginSwitch(load);

  // A server that connects without this page (at start with --allow-mcp) is followed until it
  // is connected or failed; this page's own requests answer with the outcome instead.
  const othersConnecting = !!list?.data.some((s) => s.state === "connecting" && !busy[s.name]);
  useEffect(() => {
    if (!othersConnecting) return;
    const t = setTimeout(() => void load(), CONNECTING_POLL_MS);
    return () => clearTimeout(t);
  }, [list, othersConnecting]);

  const replace = (info: McpServerInfo) =>
    setList((l) => l && { ...l, data: l.data.map((s) => (s.name === info.name ? info : s)) });

  const run = async (name: string, action: McpAction) => {
    setBusy((b) => ({ ...b, [name]: action }));
    setErrors((m) => without(m, name));
    try {
      replace(await (action === "connect" ? api.connectMcp(name) : api.disconnectMcp(name)));
    } catch (e) {
      setErrors((m) => ({ ...m, [name]: errorText(e) }));
      // The server keeps why a connect failed: the list shows its state as it now is.
      await load();
    } finally {
      setBusy((b) => without(b, name));
    }
  };

  const connected = list?.data.filter((s) => s.state === "connected").length ?? 0;

  return (
    <section class="card mcp" aria-labelledby="mcp-h">
      <h2 id="mcp-h">MCP servers</h2>
      <WorkspaceConfigNotice onApproved={() => void load()} />
      <p class="small mcp-approval-note">
        Every call of an MCP tool asks for your approval, in every mode: what a server says of its tools
        (read-only, destructive, …) is shown on the approval and never makes Tradewind ask less. A connected
        server's tools are offered from the agent's next model call.
      </p>
      {list?.blocked && (
        <p class="notice small" data-mcp-blocked>
          MCP is off: this server runs with <code>--read-only</code>, so no MCP server is started.
        </p>
      )}
      {list && !list.blocked && (
        <p class="muted small" data-mcp-allowed={list.allowed}>
          {list.allowed
            ? "Started with --allow-mcp: the enabled servers were connected at start, and runs without a browser may call their tools."
            : "Servers connect when you press Connect (or at every start with --allow-mcp)."}
          {list.data.length > 0 && ` ${connected} of ${list.data.length} connected.`}
        </p>
      )}
      {list && list.data.length === 0 && (
        <div class="mcp-empty" data-mcp-empty>
          <p>No MCP server is configured.</p>
          <ConfigHelp />
        </div>
      )}
      {list && list.data.length > 0 && (
        <>
          <ul class="mcp-list">
            {list.data.map((s) => (
              <McpServerItem
                key={s.name}
                server={s}
                blocked={list.blocked}
                busy={busy[s.name] ?? null}
                requestError={errors[s.name] ?? null}
                onConnect={() => void run(s.name, "connect")}
                onDisconnect={() => void run(s.name, "disconnect")}
              />
            ))}
          </ul>
          <details class="mcp-help">
            <summary>Adding a server</summary>
            <ConfigHelp />
          </details>
        </>
      )}
      {loadError && (
        <p class="error" role="alert">
          {loadError}
        </p>
      )}
    </section>
  );
}
