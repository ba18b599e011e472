import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { stripAnsi } from "../render/ansi";
import type { LiveOutput, OutputChunk } from "../state/output";
import { outputLabel } from "../util/format";
import { VisibleText } from "./VisibleText";

/** Closer than this to the end of the output (px), the box follows what comes. */
const END_SLACK = 8;

/**
 * A command's output while it runs, as its `tool_output` events bring it: stdout and stderr in the
 * order they came, stderr marked. The box follows the end unless the user scrolled up in it. Its
 * result replaces it with the whole output (TerminalView).
 */
export function LiveTerminal({ command, output, running }: { command: string; output: LiveOutput; running: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  });
  const onScroll = () => {
    const el = ref.current;
    if (el) following.current = el.scrollHeight - el.scrollTop - el.clientHeight < END_SLACK;
  };
  const stderr = output.chunks.some((c) => c.stream === "stderr");
  return (
    <figure class="terminal terminal-live" data-running={running ? "" : undefined}>
      {command && (
        <figcaption class="terminal-head">
          <span class="prompt" aria-hidden="true">$</span>
          <code class="terminal-cmd">
            <VisibleText text={command} newlines />
          </code>
        </figcaption>
      )}
      {output.cut && <p class="muted small pad live-cut">Earlier output is not shown here: the whole output comes with the result.</p>}
      {/* Not announced as it comes (the transcript is a live region): it is read in the box. */}
      <pre class="ansi live-output" ref={ref} tabIndex={0} role="region" aria-label={outputLabel("Output so far", command)} aria-live="off" onScroll={onScroll}>
        {output.chunks.map((c) => (
          <Chunk key={c.id} chunk={c} />
        ))}
      </pre>
      <div class="terminal-foot">
        <span class="live-state">{running ? "running…" : "stopped before its result"}</span>
        {stderr && (
          <span class="live-key">
            stderr: <span class="live-stderr">marked like this</span>
          </span>
        )}
      </div>
    </figure>
  );
}

/** One chunk of one stream; its text is read again only when more was added to it. */
function Chunk({ chunk }: { chunk: OutputChunk }) {
  const text = useMemo(() => stripAnsi(chunk.text), [chunk.text]);
  return chunk.stream === "stderr" ? (
    <span class="live-stderr" data-stream="stderr">
      {text}
    </span>
  ) : (
    <span data-stream="stdout">{text}</span>
  );
}
