import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { TerminalPart } from "../api/types";
import { useAction } from "../state/action";
import { route } from "../state/router";
import { duration, outputLabel } from "../util/format";
import { stripAnsi } from "../render/ansi";
import { AnsiText } from "./AnsiText";
import { CopyButton } from "./CopyButton";
import { FormError } from "./FormError";
import { VisibleText } from "./VisibleText";
import { missingPrograms, reachedFor } from "../util/shellErrors";
import "../polish.css";

function joinOutput(stdout: string | null | undefined, stderr: string | null | undefined): string {
  const out = stdout ?? "";
  const err = stderr ?? "";
  if (!out || !err) return out || err;
  return out.endsWith("\n") ? out + err : `${out}\n${err}`;
}

/**
 * A command's result: its output, each stream's block labelled by its stream, and how it ended.
 * Colours follow the exit status, not the stream: what a passing command wrote to stderr
 * (progress, warnings) is not shown as an error; a failing command's stderr is.
 */
export function TerminalView({ part }: { part: TerminalPart }) {
  const code = part.exit_code;
  const ok = code === 0;
  const output = `${part.stderr ?? ""}\n${part.stdout ?? ""}`;
  // A program the shell could not find is not a path the sandbox hid (the shell that says so ran).
  const missing = ok ? [] : missingPrograms(output);
  const hidden = reachedFor(part.hidden ?? [], output);
  return (
    <figure class={`terminal ${ok ? "terminal-ok" : "terminal-fail"}`} data-exit-code={code ?? ""}>
      <figcaption class="terminal-head">
        <span class="prompt" aria-hidden="true">$</span>
        <code class="terminal-cmd">
          <VisibleText text={part.command} newlines />
        </code>
      </figcaption>
      {part.stdout && (
        <div class="stream-block stdout-block">
          {part.stderr && <span class="stream-label">stdout</span>}
          <AnsiText text={part.stdout} class="stdout" label={outputLabel("Standard output", part.command)} />
        </div>
      )}
      {part.stderr && (
        <div class="stream-block stderr-block">
          <span class="stream-label">stderr</span>
          <AnsiText text={part.stderr} class="stderr" label={outputLabel("Standard error", part.command)} />
        </div>
      )}
      {!part.stdout && !part.stderr && <p class="muted small pad">(no output)</p>}
      {missing.length > 0 && (
        <p class="terminal-missing" data-missing-programs={missing.join(" ")}>
          {missing.map((m, i) => (
            <span key={m}>
              {i > 0 && " "}
              <code>{m}</code> was not found: it is not installed, or not on the PATH commands get.
            </span>
          ))}
        </p>
      )}
      {hidden.length > 0 && <HiddenPaths paths={hidden} command={part.command} />}
      <div class="terminal-foot">
        <span class={`exit ${ok ? "exit-ok" : "exit-fail"}`}>
          {code === null || code === undefined ? "no exit code" : `exit ${code}`}
        </span>
        {part.duration_ms !== null && part.duration_ms !== undefined && <span>{duration(part.duration_ms)}</span>}
        {part.truncated && <span class="badge badge-warn">output truncated</span>}
        {(part.stdout || part.stderr) && (
          <CopyButton
            label="Copy output"
            text={() => stripAnsi(joinOutput(part.stdout, part.stderr))}
          />
        )}
      </div>
    </figure>
  );
}

/** Paths the sandbox hid from a command that failed: each can be let in, read-only, for the
 *  session (the grant shows, and can be revoked, under Permissions). */
function HiddenPaths({ paths, command }: { paths: string[]; command: string }) {
  const [allowed, setAllowed] = useState<string[]>([]);
  const allow = useAction(async (path: string) => {
    const r = route.get();
    if (r.name !== "session") throw new Error("Open the session to allow this.");
    await api.allowInJail(r.id, path);
    setAllowed((a) => [...a, path]);
  });
  // Once a path is let in, the same command again, as the user's own `!command` (it queues
  // behind a run at work).
  const [sentAgain, setSentAgain] = useState(false);
  const again = useAction(async () => {
    const r = route.get();
    if (r.name !== "session") throw new Error("Open the session to run it again.");
    await api.sendMessage(r.id, `!${command}`);
    setSentAgain(true);
  });
  return (
    <div class="terminal-hidden" role="group" aria-label="Paths the sandbox hid">
      {paths.map((p) => (
        <p key={p} data-hidden-path={p}>
          The sandbox hid <code>{p}</code> from this command.{" "}
          {allowed.includes(p) ? (
            <>
              <span class="badge badge-allowed" role="status">
                Allowed for this session
              </span>{" "}
              {sentAgain ? (
                <span class="muted small" role="status">
                  Sent again: its result follows below.
                </span>
              ) : (
                <button
                  type="button"
                  class="btn small"
                  disabled={again.busy}
                  title="Run the same command again now, as your own !command"
                  onClick={() => void again.run()}
                >
                  {again.busy ? "Sending…" : "Run it again"}
                </button>
              )}
            </>
          ) : (
            <button type="button" class="btn small" disabled={allow.busy} onClick={() => void allow.run(p)}>
              Allow for this session
            </button>
          )}
        </p>
      ))}
      <FormError error={allow.error ?? again.error} small />
    </div>
  );
}
