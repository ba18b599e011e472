import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Mode, Session } from "../api/types";
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

  const ceiling = cfg
    ? cfg.read_only
      ? "server is read-only"
      : `server allows without asking: ${
          [cfg.ceiling.write && "write", cfg.ceiling.process && "process", cfg.ceiling.external && "external"]
            .filter(Boolean)
            .join(", ") || "nothing"
        }${cfg.yolo ? " (yolo)" : ""}`
    : "";

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
        <span class="ceiling" title="Startup flags are a ceiling: an effect they do not allow still asks, whatever the mode.">
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
