import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { PluginInfo, PluginList } from "../api/types";
import { useAction } from "../state/action";
import { pluginSwitched } from "../state/plugins";
import { FormError } from "./FormError";
import { PluginItem } from "./PluginItem";
import "../extensions.css";

const INSTALL = `tradewind plugin install npm:<package> --yes
tradewind plugin install file:./my-plugin.tgz --yes`;

const EXAMPLE = `{
  "name": "greeter",
  "version": "1.0.0",
  "description": "Greets.",
  "mcpServers": {
    "greeter": {
      "command": "node",
      "args": ["\${CLAUDE_PLUGIN_ROOT}/server.mjs"]
    }
  }
}`;

/** How plugins are installed and made: shown when there is none, folded away under the list otherwise. */
function PluginsHelp() {
  return (
    <>
      <p class="small">
        Install one from a terminal on the server's machine (into <code>plugins/</code> of the state directory,{" "}
        <code>$TRADEWIND_HOME</code>, by default <code>~/.tradewind</code>); npm runs none of its scripts:
      </p>
      <pre class="extension-example">{INSTALL}</pre>
      <p class="small">
        Or ask the agent to install it: its <code>plugin_install</code> tool asks you every time. Either way it is
        installed off: turn it on here, or with <code>tradewind plugin enable NAME</code>.
      </p>
      <p class="small">
        A plugin is a folder with a <code>tradewind-plugin.json</code> (or Claude Code's{" "}
        <code>.claude-plugin/plugin.json</code>): its <code>name</code>, <code>version</code> and{" "}
        <code>description</code>, and what it bundles: <code>skills/</code>, <code>agents/</code>,{" "}
        <code>commands/</code>, <code>hooks/hooks.json</code> and <code>mcpServers</code> (where{" "}
        <code>{"${CLAUDE_PLUGIN_ROOT}"}</code> stands for its folder). For example:
      </p>
      <pre class="extension-example">{EXAMPLE}</pre>
    </>
  );
}

/**
 * Settings → Plugins: the plugins installed in the state directory, each with its version,
 * description, what it bundles (skills, agents, commands, hooks, MCP servers, the web search it
 * serves), its folder and what of it cannot be used; turn one on or off. A switch has the other
 * Settings panels and the agent pickers read their lists again: a plugin's parts join or leave them.
 */
export function PluginsPanel() {
  const [list, setList] = useState<PluginList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  /** The plugin the last switch was for: its row shows why it failed. */
  const [switched, setSwitched] = useState<string | null>(null);

  useEffect(() => {
    api.plugins().then(
      (l) => {
        setList(l);
        setLoadError(null);
      },
      (e) => setLoadError(`Could not load the plugins: ${errorText(e)}`),
    );
  }, []);

  const toggle = useAction(
    async (p: PluginInfo, enabled: boolean) => {
      setSwitched(p.name);
      setStatus(null);
      setList(await api.switchPlugin(p.name, enabled));
      pluginSwitched();
      setStatus(
        enabled
          ? `${p.name} is on: what it bundles counts from the next run.`
          : `${p.name} is off: none of it is used from the next run.`,
      );
    },
    { message: (e, p, enabled) => `${p.name} was not turned ${enabled ? "on" : "off"}: ${errorText(e)}` },
  );
  const pending = toggle.running ? { name: toggle.running[0].name, enabled: toggle.running[1] } : null;

  return (
    <section class="card plugins" aria-labelledby="plugins-h">
      <h2 id="plugins-h" tabIndex={-1}>
        Plugins
      </h2>
      <p class="muted small">
        A plugin bundles skills, agents, slash commands, hooks and MCP servers in one folder. Once it is on, they count
        in every workspace, next to your own, and are listed with them in the panels above.
      </p>
      <p class="small plugins-off-note">
        <strong>An installed plugin is off until you turn it on here:</strong> none of it is used before.
      </p>
      {status && (
        <p class="ok small" role="status">
          {status}
        </p>
      )}
      {list && list.data.length === 0 && (
        <div class="extension-empty" data-plugins-empty>
          <p>No plugin is installed.</p>
          <PluginsHelp />
        </div>
      )}
      {list && list.data.length > 0 && (
        <>
          <ul class="extension-list plugin-list" aria-label="Plugins">
            {list.data.map((p) => (
              <PluginItem
                key={p.name}
                plugin={p}
                pending={pending?.name === p.name ? pending.enabled : null}
                busy={toggle.busy}
                error={switched === p.name ? toggle.error : null}
                onSwitch={(on) => void toggle.run(p, on)}
              />
            ))}
          </ul>
          <details class="extension-help">
            <summary>Installing a plugin</summary>
            <PluginsHelp />
          </details>
        </>
      )}
      <FormError error={loadError} />
    </section>
  );
}
