import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Task } from "../api/types";
import { useAction } from "../state/action";
import { pinnedPanelStartsOpen } from "../state/layout";
import type { LiveOutput } from "../state/output";
import { LIVE_TASK } from "../state/transcript";
import { duration } from "../util/format";
import { stripAnsi } from "../render/ansi";
import { AnsiText } from "./AnsiText";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";

/** Output kept on screen per task (the log itself can be 2 MiB + tail). */
const KEEP_CHARS = 256 * 1024;
const POLL_MS = 1000;

function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * A task's output: while it runs, as its `task_output` events bring it (bounded like a command's
 * live output) — or, until one has come (a task whose start is older than the events held),
 * its log read by byte offset every second; once it ended, its whole log, read to the end.
 */
function TaskOutput({ task, liveOutput }: { task: Task; liveOutput: LiveOutput | undefined }) {
  const [text, setText] = useState("");
  const [dropped, setDropped] = useState(false);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const offset = useRef(0);
  const done = useRef(false);
  const pre = useRef<HTMLDivElement>(null);
  const live = LIVE_TASK.has(task.status);
  const fromEvents = live && liveOutput !== undefined && liveOutput.size > 0;

  useEffect(() => {
    // While it runs and its events bring the output, the log is not read.
    if (fromEvents) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (stopped) return;
      try {
        // Read everything available, a chunk at a time.
        for (let i = 0; i < 32 && !stopped; i++) {
          const r = await api.taskOutput(task.id, offset.current);
          if (stopped) return;
          const next = typeof r.next_offset === "number" ? r.next_offset : offset.current;
          if (r.text) {
            setText((cur) => {
              const all = cur + r.text;
              if (all.length > KEEP_CHARS) {
                setDropped(true);
                return all.slice(all.length - KEEP_CHARS);
              }
              return all;
            });
          }
          if (r.output_truncated) setTruncated(true);
          const moved = next > offset.current;
          offset.current = next;
          if (r.eof && !LIVE_TASK.has(r.status)) {
            done.current = true;
            return;
          }
          if (!moved || r.eof) break;
        }
        setError(null);
      } catch (e) {
        setError(errorText(e));
      }
      if (!stopped && !done.current) timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // Restart when the task ends, to read to the end once more.
  }, [task.id, live, fromEvents]);

  // Follow the end while the user has not scrolled up.
  const liveSize = liveOutput?.size ?? 0;
  useEffect(() => {
    const el = pre.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 40) el.scrollTop = el.scrollHeight;
  }, [text, liveSize]);

  if (fromEvents) {
    const shown = liveOutput.chunks.map((c) => c.text).join("");
    return (
      <div class="task-output" ref={pre} data-task-output={task.id} data-live="">
        <div class="task-output-tools">
          <CopyButton label="Copy output" text={() => stripAnsi(shown)} />
        </div>
        {liveOutput.cut && <p class="muted small">Earlier output not shown here: the task's log has it all.</p>}
        <AnsiText text={shown} class="task-log" />
      </div>
    );
  }
  return (
    <div class="task-output" ref={pre} data-task-output={task.id}>
      {text && (
        <div class="task-output-tools">
          <CopyButton label="Copy output" text={() => stripAnsi(text)} />
        </div>
      )}
      {dropped && <p class="muted small">Earlier output not shown.</p>}
      {text ? <AnsiText text={text} class="task-log" /> : <p class="muted small">{live ? "No output yet." : "No output."}</p>}
      {truncated && <p class="muted small">The log was capped; its last part follows the notice line.</p>}
      {error && <p class="error small">Could not read the output: {error}</p>}
    </div>
  );
}

function TaskRow({ task: t, liveOutput, onStopped }: { task: Task; liveOutput: LiveOutput | undefined; onStopped: (t: Task) => void }) {
  const [open, setOpen] = useState(LIVE_TASK.has(t.status));
  const stop = useAction(async () => onStopped(await api.stopTask(t.id)));
  const live = LIVE_TASK.has(t.status);
  const now = useNow(live && t.started_at != null);
  const end = t.finished_at ?? (live ? now : null);
  const err = t.error || null;
  return (
    <li class={`task task-${t.status}`} data-task-id={t.id}>
      <div class="task-line">
        <button type="button" class="linklike task-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "▾" : "▸"}
        </button>
        <span class={`badge task-status badge-task-${t.status}`}>{t.status}</span>
        {/* A task without a label goes by its command (below), never by its id. */}
        {t.label.trim() && (
          <span class="task-label">
            <VisibleText text={t.label} />
          </span>
        )}
        {t.pid != null && <span class="muted small task-pid">pid {t.pid}</span>}
        {t.started_at != null && end != null && <span class="muted small task-duration">{duration(end - t.started_at)}</span>}
        {t.exit_code != null && <span class="muted small task-exit">exit {t.exit_code}</span>}
        {t.stopped_by && <span class="muted small">stopped by {t.stopped_by}</span>}
        <span class="spacer" />
        {live && t.status !== "stopping" && (
          <button type="button" class="btn small danger" disabled={stop.busy} onClick={() => void stop.run()}>
            Stop
          </button>
        )}
      </div>
      <code class="task-cmd" title={t.cwd ?? undefined}>
        $ <VisibleText text={t.command} />
      </code>
      {err && <p class="error small">{err}</p>}
      <FormError error={stop.error} small />
      {open && <TaskOutput task={t} liveOutput={liveOutput} />}
    </li>
  );
}

export function TasksPanel({ tasks, output, onTask }: { tasks: Task[]; output: ReadonlyMap<string, LiveOutput>; onTask: (t: Task) => void }) {
  const [open, setOpen] = useState(pinnedPanelStartsOpen);
  const live = tasks.filter((t) => LIVE_TASK.has(t.status)).length;
  return (
    <details class="tasks-panel" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        Background tasks <span class={`badge${live ? " badge-running" : ""}`}>{live} running</span>{" "}
        <span class="muted small">{tasks.length} total</span>
      </summary>
      <ul class="tasks">
        {tasks.map((t) => (
          <TaskRow key={t.id} task={t} liveOutput={output.get(t.id)} onStopped={onTask} />
        ))}
      </ul>
    </details>
  );
}
