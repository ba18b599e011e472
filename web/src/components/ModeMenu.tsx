import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Mode, ServerConfig, Session } from "../api/types";
import { useAction } from "../state/action";
import { serverConfig } from "../state/app";
import { modeCycleRequest, nextMode } from "../state/keys";
import { useObservable } from "../state/observable";
import { upsertSession } from "../state/sessions";
import { FormError } from "./FormError";

const HELP: Record<Mode, string> = {
  ask: "ask: edits, commands and network ask first",
  auto: "auto: edits in the workspace run; commands and network ask",
  full: "full: everything the server allows runs without asking",
};

/** What each start flag lets run without asking, as the limit line names it when it is missing. */
const WITHOUT: Record<"write" | "process" | "external", string> = {
  write: "file edits",
  process: "commands",
  external: "network access",
};

/**
 * The server's limit, read as one: the most a mode can loosen ("This server allows at most auto
 * mode") and what still asks in any mode.
 */
export function ceilingText(cfg: Pick<ServerConfig, "read_only" | "yolo" | "ceiling">): string {
  if (cfg.read_only) return "This server is read-only: the agent can only read";
  const keys = ["write", "process", "external"] as const;
  const missing = keys.filter((k) => !cfg.ceiling[k]);
  if (missing.length === keys.length) return "This server allows at most ask mode: everything asks first";
  const most = cfg.ceiling.process || cfg.ceiling.external ? "full" : "auto";
  const asks = missing.map((k) => WITHOUT[k]);
  // "network access" is one thing (it asks); "commands", "file edits" and any two are several.
  const one = missing.length === 1 && missing[0] === "external";
  const still = asks.length === 0 ? "" : `; ${asks.join(" and ")} always ${one ? "asks" : "ask"}`;
  return `This server allows at most ${most} mode${still}${cfg.yolo ? " (yolo: dangerous commands do not ask)" : ""}`;
}

export function ModeMenu({ session }: { session: Session }) {
  const cfg = useObservable(serverConfig);
  const change = useAction(async (mode: Mode) => upsertSession(await api.patchSession(session.id, { mode })));
  // Shift+Tab in the prompt: the next mode, through this menu's own change; said aloud once made.
  const cycle = useObservable(modeCycleRequest);
  const [said, setSaid] = useState("");
  useEffect(() => {
    if (cycle?.session !== session.id) return;
    modeCycleRequest.set(null);
    if (change.busy || cfg?.read_only) return;
    const next = nextMode(session.mode);
    void change.run(next).then((ok) => ok && setSaid(`Permissions ${HELP[next]}`));
  }, [cycle]);

  const ceiling = cfg ? ceilingText(cfg) : "";

  return (
    <span class="mode-menu">
      <label>
        <span class="mode-label">Permissions</span>
        <select
          name="mode"
          value={session.mode}
          disabled={change.busy || cfg?.read_only}
          title={`${HELP[session.mode]} (Shift+Tab in the prompt: the next mode)`}
          onChange={(e) => void change.run((e.target as HTMLSelectElement).value as Mode)}
        >
          <option value="ask">ask</option>
          <option value="auto">auto</option>
          <option value="full">full</option>
        </select>
      </label>
      {ceiling && (
        <span class="ceiling" title="The server's start flags set this limit: what they do not allow always asks, whatever the mode.">
          {ceiling}
        </span>
      )}
      <FormError error={change.error} small inline />
      <span class="visually-hidden" role="status">
        {said}
      </span>
    </span>
  );
}
