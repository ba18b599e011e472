import { connection } from "../api/socket";
import { useObservable } from "../state/observable";

const LABEL = {
  connecting: "Connecting…",
  open: "Live",
  reconnecting: "Reconnecting…",
  offline: "Offline",
} as const;

export function ConnectionIndicator() {
  const state = useObservable(connection.state);
  return (
    <button
      type="button"
      class={`conn conn-${state}`}
      data-state={state}
      onClick={() => connection.reconnectNow()}
      title={state === "open" ? "Connected: updates arrive live" : "Click to reconnect now"}
      aria-live="polite"
    >
      <span class="conn-dot" aria-hidden="true" />
      <span class="conn-label">{LABEL[state]}</span>
    </button>
  );
}
