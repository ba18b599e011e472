import { fieldsOf, keyWords } from "../util/humanText";
import { Internals } from "./HumanFields";
import { VisibleText } from "./VisibleText";

/** A tool's input: commands and paths shown literally (control characters visible). */
export function ToolInput({ tool, input, preview = false }: { tool: string; input: unknown; preview?: boolean }) {
  if (input === null || input === undefined) return null;
  if (typeof input !== "object") {
    return <pre class="tool-input"><VisibleText text={String(input)} newlines /></pre>;
  }
  const o = input as Record<string, unknown>;
  const rows: preact.JSX.Element[] = [];
  const rest: Record<string, unknown> = {};
  const FIRST = ["command", "argv", "path", "cwd", "directory", "old", "new", "content"];
  const keys = Object.keys(o).sort((a, b) => {
    const ia = FIRST.indexOf(a);
    const ib = FIRST.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  for (const k of keys) {
    const v = o[k];
    if (k === "command" && typeof v === "string") {
      rows.push(
        <div class="kv" key={k}>
          <span class="k">command</span>
          <pre class="v cmd"><VisibleText text={v} newlines /></pre>
        </div>,
      );
    } else if (k === "argv" && Array.isArray(v)) {
      rows.push(
        <div class="kv" key={k}>
          <span class="k">argv</span>
          <ol class="v argv">
            {v.map((a, i) => (
              <li key={i}>
                <code><VisibleText text={String(a)} newlines /></code>
              </li>
            ))}
          </ol>
        </div>,
      );
    } else if ((k === "path" || k === "cwd" || k === "directory") && typeof v === "string") {
      rows.push(
        <div class="kv" key={k}>
          <span class="k">{k}</span>
          <code class="v path"><VisibleText text={v} newlines /></code>
        </div>,
      );
    } else if (preview && k === "content" && typeof v === "string") {
      rows.push(
        <div class="kv" key={k}>
          <span class="k">content</span>
          <ContentPreview text={v} />
        </div>,
      );
    } else if (tool === "edit_file" && (k === "old" || k === "new") && typeof v === "string") {
      rows.push(
        <div class="kv" key={k}>
          <span class="k">{k === "old" ? "replace" : "with"}</span>
          <pre class={`v edit-${k}`}><VisibleText text={v} /></pre>
        </div>,
      );
    } else {
      rest[k] = v;
    }
  }
  // The other fields as rows too (never a JSON blob): strings with their real line breaks, empty
  // ones left out, ids and fingerprints folded under Details.
  const { fields, internals } = fieldsOf(rest);
  for (const f of fields) {
    rows.push(
      <div class="kv" key={f.key}>
        <span class="k">{keyWords(f.key)}</span>
        <pre class="v text"><VisibleText text={f.value} /></pre>
      </div>,
    );
  }
  return (
    <div class="tool-input">
      {rows}
      <Internals fields={internals} />
    </div>
  );
}

const PREVIEW_LINES = 40;

function ContentPreview({ text }: { text: string }) {
  const lines = text.split("\n");
  const cut = lines.length > PREVIEW_LINES;
  const shown = cut ? lines.slice(0, PREVIEW_LINES).join("\n") : text;
  return (
    <div class="v content-preview">
      <pre><VisibleText text={shown} /></pre>
      {cut && <p class="muted small">… {lines.length - PREVIEW_LINES} more lines</p>}
    </div>
  );
}
