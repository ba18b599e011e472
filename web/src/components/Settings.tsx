import { useEffect, useState } from "preact/hooks";
import { serverConfig } from "../state/app";
import { askNotificationPermission } from "../state/attention";
import { useObservable } from "../state/observable";
import { SETTINGS_PANELS, settingsPanelRequest } from "../state/panels";
import { themeChoice, type ThemeChoice } from "../state/theme";
import { AgentsPanel } from "./AgentsPanel";
import { ConnectionFacts, DevicesPanel } from "./DevicesPanel";
import { HooksPanel } from "./HooksPanel";
import { McpPanel } from "./McpPanel";
import { MemoryPanel } from "./MemoryPanel";
import { PluginsPanel } from "./PluginsPanel";
import { ProvidersPanel } from "./ProvidersPanel";
import { PushPanel } from "./PushPanel";
import { SettingsIndex } from "./SettingsIndex";
import { SkillsPanel } from "./SkillsPanel";
import { TokensPanel } from "./TokensPanel";
import { UsagePanel } from "./UsagePanel";
import { WebSearchForm } from "./WebSearchForm";

export function Settings() {
  const cfg = useObservable(serverConfig);
  const theme = useObservable(themeChoice);
  const [notif, setNotif] = useState(typeof Notification === "undefined" ? "unsupported" : Notification.permission);
  const request = useObservable(settingsPanelRequest);

  // A panel asked for (`/skills`, `/agents`, `/plugins`): its title comes into view with the focus, once.
  useEffect(() => {
    if (!request) return;
    const title = document.getElementById(SETTINGS_PANELS[request.panel]);
    if (!title) return;
    title.scrollIntoView({ block: "start" });
    title.focus({ preventScroll: true });
    settingsPanelRequest.set(null);
  }, [request]);

  return (
    <div class="settings">
      <h1>Settings</h1>
      <SettingsIndex haveConfig={cfg !== null} />
      <ProvidersPanel />
      <UsagePanel />
      <WebSearchForm />
      <McpPanel />
      <SkillsPanel />
      <HooksPanel />
      <AgentsPanel />
      <PluginsPanel />
      <MemoryPanel />

      <section class="card">
        <h2 id="appearance-h">Appearance and alerts</h2>
        <label class="field inline">
          <span>Theme</span>
          <select value={theme} onChange={(e) => themeChoice.set((e.target as HTMLSelectElement).value as ThemeChoice)}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <p class="row">
          <span>
            Browser notifications when the agent needs you while the app is open:{" "}
            {notif === "default" ? "not enabled" : notif === "granted" ? "on" : notif === "denied" ? "blocked in this browser" : "not supported"}
          </span>
          {notif === "default" && (
            <button type="button" class="btn small" onClick={() => void askNotificationPermission().then(setNotif)}>
              Enable
            </button>
          )}
        </p>
      </section>

      <PushPanel />

      {cfg && <ConnectionFacts cfg={cfg} />}
      <DevicesPanel />
      <TokensPanel />

      {cfg && (
        <section class="card">
          <h2 id="server-h">Server</h2>
          <dl class="facts">
            <dt>Version</dt>
            <dd>{cfg.version}</dd>
            <dt>Startup flags</dt>
            <dd>
              {cfg.read_only
                ? "read-only"
                : ["write", "process", "external"]
                    .map((k) => `${k} ${cfg.ceiling[k as "write"] ? "allowed" : "asks"}`)
                    .join(" · ")}
            </dd>
            {cfg.workspace && (
              <>
                <dt>Default workspace</dt>
                <dd>
                  <code>{cfg.workspace}</code>
                </dd>
              </>
            )}
            {cfg.yolo && (
              <>
                <dt>Yolo</dt>
                <dd>on: dangerous categories do not ask in full mode</dd>
              </>
            )}
          </dl>
        </section>
      )}
    </div>
  );
}
