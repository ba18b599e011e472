import type { HookItem } from "../state/transcript";

const SAID: Record<string, string> = {
  passed: "ran",
  denied: "refused it",
  asked: "asked first",
  failed: "failed",
  not_granted: "was not allowed to run",
};

/** A hook of `hooks.json` ran: what it ran for, its command, and what it said. */
export function HookNote({ item }: { item: HookItem }) {
  return (
    <div class={`system-note hook-note hook-${item.outcome}`} role="note" data-hook-outcome={item.outcome}>
      {item.event} hook <code class="hook-command">{item.command}</code> {SAID[item.outcome] ?? item.outcome}
      {item.tool ? ` (${item.tool})` : ""}
      {item.reason && <span class="hook-reason">: {item.reason}</span>}
      <span class="muted"> · {item.durationMs} ms</span>
    </div>
  );
}
