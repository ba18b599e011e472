import type { RunState } from "../state/transcript";

const TRIGGER: Record<string, string> = {
  command: "Shell command",
  plan: "Implementing the approved plan",
  wakeup: "Woken up: background tasks finished",
  resume: "Resuming the run that stopped",
  compact: "Compacting the conversation",
  hook: "A Stop hook asked for another turn",
};

/** A run boundary: visible only when the run was not started by a plain prompt. */
export function RunStart({ run }: { run: RunState }) {
  const s = run.started;
  if (!s) return null;
  const label = TRIGGER[s.trigger];
  if (!label) return null;
  return (
    <div class="run-start" data-run-id={run.id}>
      <span>
        {/* A compaction makes no answer: the agent and mode play no part in it. */}
        {s.trigger === "compact" ? label : `${label} · ${s.agent} · ${s.mode}`}
      </span>
    </div>
  );
}
