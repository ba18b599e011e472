// A plugin switched on or off changes what the server's lists hold: its skills, agents, hooks and
// MCP servers join them or leave them. The Settings panels that list those read them again when
// told so here, and the agents the pickers offer are read again at once.
import { useEffect, useRef } from "preact/hooks";
import { refreshAgents } from "./agents";
import { Observable } from "./observable";

/** How many plugin switches this page made: a change means the lists above are out of date. */
const switches = new Observable<number>(0);

/** A plugin was switched on or off: every list that a plugin adds to is read again. */
export function pluginSwitched(): void {
  switches.update((n) => n + 1);
  // The New session form, the session header and `/agent` offer the plugin's agents, or stop.
  refreshAgents().catch(() => undefined);
}

/** Run `load` after each plugin switch made while the calling component is shown. */
export function useReloadOnPluginSwitch(load: () => unknown): void {
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => switches.subscribe(() => void latest.current()), []);
}
