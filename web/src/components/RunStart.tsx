import type { RunState } from "../state/transcript";

const TRIGGER: Record<string, string> = {
  prompt: "",
  command: "command",
  plan: "approved plan",
  wakeup: "wake-up",
};

export function RunStart({ run }: { run: RunState }) {
  const s = run.started;
  if (!s) return null;
  const trig = TRIGGER[s.trigger] ?? s.trigger;
  if (run.finished) return null;
  return (
    <div class="run-start" data-run-id={run.id}>
      <span class="spinner" aria-hidden="true" />
      <span>
        Working{trig ? ` (${trig})` : ""} · {s.agent} · {s.mode}
      </span>
    </div>
  );
}
