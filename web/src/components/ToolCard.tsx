import { useState } from "preact/hooks";
import type { DiffPart, TerminalPart } from "../api/types";
import type { ToolItem } from "../state/transcript";
import { inputSummary } from "../util/format";
import { humanResult } from "../util/humanText";
import { FieldRows, Internals } from "./HumanFields";
import { DiffView } from "./DiffView";
import { TerminalView } from "./TerminalView";
import { InlineCode } from "./InlineCode";
import { LiveTerminal } from "./LiveTerminal";
import { ResultParts, displayParts } from "./ResultParts";
import { SubagentToolResult } from "./SubagentToolResult";
import { ToolInput } from "./ToolInput";
import { VisibleText } from "./VisibleText";
import { useScrollFocus } from "./useScrollFocus";

function statusOf(t: ToolItem): { label: string; cls: string } {
  if (t.result) return t.result.ok ? { label: "done", cls: "ok" } : { label: "failed", cls: "fail" };
  if (t.decision === "deny" || t.approval === "deny") return { label: "denied", cls: "fail" };
  if (t.approval === "expired") return { label: "not approved in time", cls: "fail" };
  // The run ended first: nothing waits or runs any more.
  if (t.runEnded) return { label: "not finished", cls: "fail" };
  // Asked and not answered yet; once allowed, it runs.
  if ((t.decision === "ask" || t.approvalId) && t.approval === null) return { label: "waiting for approval", cls: "wait" };
  return { label: "running", cls: "run" };
}

/** How many lines of a failed call's error its closed card shows. */
const PEEK_LINES = 3;
const PEEK_CHARS = 300;

/** The first lines of an error, for a closed card (the whole text is in its body). */
function errorPeek(text: string): string {
  const lines = text.trim().split("\n");
  let peek = lines.slice(0, PEEK_LINES).join("\n");
  if (peek.length > PEEK_CHARS) peek = peek.slice(0, PEEK_CHARS);
  return peek.length < text.trim().length ? `${peek.trimEnd()}…` : peek;
}

/**
 * A result as a reader sees it: a JSON object as rows (real line breaks, no empty values), other
 * text as it is; ids and fingerprints folded under Details either way.
 */
function ResultText({ text }: { text: string }) {
  const h = humanResult(text);
  return (
    <>
      {h.fields ? <FieldRows fields={h.fields} class="tool-result-fields" /> : h.text.trim() && <pre>{h.text}</pre>}
      <Internals fields={h.internals} />
    </>
  );
}

/** The call id the server gives the reads an `@path` in a prompt attaches. */
const MENTION = "mention_";

/** Tool cards the user opened: a card scrolled out of the windowed transcript comes back open. */
const opened = new Set<string>();

export function ToolCard({ item }: { item: ToolItem }) {
  const [open, setOpenState] = useState(() => opened.has(item.callId));
  // Its input, output and diffs scroll past their caps: reachable with the keyboard too.
  const scrollRoot = useScrollFocus<HTMLDivElement>("Details of the call");
  const setOpen = (o: boolean) => {
    if (o) opened.add(item.callId);
    else opened.delete(item.callId);
    setOpenState(o);
  };
  const st = statusOf(item);
  const parts = item.result?.parts ?? [];
  const diffs = parts.filter((p): p is DiffPart => p.type === "diff");
  const terms = parts.filter((p): p is TerminalPart => p.type === "terminal");
  // Images, tables, key–value pairs, trees: shown below the card; the text stays in the body.
  const shown = displayParts(parts);
  const summary = inputSummary(item.tool, item.input);
  const id = `tool-${item.callId}`;
  // A failed call says why on its closed card; a command's output below says it already.
  const peek = !open && item.result && !item.result.ok && terms.length === 0 ? errorPeek(item.result.text) : "";
  return (
    <div class={`tool-card tool-${st.cls}`} data-tool={item.tool} data-call-id={item.callId} ref={scrollRoot}>
      <button
        type="button"
        class="tool-head"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        <span class="tool-caret" aria-hidden="true">{open ? "▾" : "▸"}</span>
        <span class="tool-name">{item.tool || "command"}</span>
        {item.callId.startsWith(MENTION) && (
          <span class="tool-origin muted small" title="Read for the prompt's @ mention">
            @ mention
          </span>
        )}
        {item.effect && <span class={`effect effect-${item.effect}`}>{item.effect}</span>}
        {summary.trim() && (
          <span class="tool-summary">
            <VisibleText text={summary.length > 200 ? `${summary.slice(0, 200)}…` : summary} newlines />
          </span>
        )}
        <span class={`tool-status status-${st.cls}`}>{st.label}</span>
      </button>
      {peek && <p class="tool-error-peek">{peek}</p>}
      {open && (
        <div class="tool-body" id={id}>
          <ToolInput tool={item.tool} input={item.input} />
          {item.decisionReason && (
            <p class="muted small">
              Policy: <InlineCode text={item.decisionReason} />
            </p>
          )}
          {item.result && !item.result.ok && item.result.text && (
            <pre class="tool-error">{item.result.text}</pre>
          )}
          {item.result && item.result.ok && diffs.length === 0 && terms.length === 0 && item.result.text && (
            <details class="tool-output" open={shown.length === 0}>
              <summary>{shown.length === 0 ? "Output" : "Text the model saw"}</summary>
              {shown.length === 0 ? <ResultText text={item.result.text} /> : <pre>{item.result.text}</pre>}
            </details>
          )}
        </div>
      )}
      {diffs.map((d, i) => (
        <DiffView key={`d${i}`} part={d} />
      ))}
      {terms.map((t, i) => (
        <TerminalView key={`t${i}`} part={t} />
      ))}
      {!item.result && item.output && <LiveTerminal command={summary} output={item.output} running={st.cls === "run"} />}
      <ResultParts parts={shown} />
      <SubagentToolResult item={item} />
    </div>
  );
}
