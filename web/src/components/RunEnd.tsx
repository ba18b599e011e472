import type { RunState } from "../state/transcript";
import { count, duration } from "../util/format";

export function RunEnd({ run }: { run: RunState }) {
  const f = run.finished;
  if (!f) return null;
  const u = f.usage;
  return (
    <div class={`run-end run-${f.status}`} data-run-id={run.id} data-status={f.status}>
      <span class="run-status">{f.status}</span>
      {f.duration_ms != null && <span>{duration(f.duration_ms)}</span>}
      {u && (
        <span title={`${u.input_tokens} input tokens, ${u.output_tokens} output tokens`}>
          {count(u.input_tokens)} in · {count(u.output_tokens)} out
        </span>
      )}
      {f.error && (
        <span class="run-error" role="alert">
          {f.error.code}: {f.error.message}
        </span>
      )}
    </div>
  );
}
