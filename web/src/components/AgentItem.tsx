import { useId } from "preact/hooks";
import type { AgentInfo } from "../api/types";
import { ceilingText } from "../util/agents";
import { VisibleText } from "./VisibleText";

/** Where an agent comes from, in a word, and what that means. */
const SOURCE: Record<string, { text: string; title: string }> = {
  builtin: { text: "built in", title: "One of the server's own agents" },
  workspace: { text: "workspace", title: "In this workspace's .tradewind/agents or .claude/agents" },
  user: { text: "user", title: "In agents/ of the state directory: every workspace sees it" },
  plugin: { text: "plugin", title: "Bundled with an enabled plugin (Settings → Plugins): every workspace sees it" },
};

/** What the built-in an agent narrows lets it do, in a few words. */
const BASE: Record<AgentInfo["base"], string> = {
  build: "build: reads, writes and runs commands",
  plan: "plan: read-only, ends with a plan for you to approve",
};

/** A list of names as code, comma-separated. */
function Codes({ names }: { names: readonly string[] }) {
  return (
    <>
      {names.map((n, i) => (
        <span key={n}>
          {i > 0 && ", "}
          <code>{n}</code>
        </span>
      ))}
    </>
  );
}

/** Its tools: the allow-list, or every tool of the built-in it narrows (no `tools` line). */
function Tools({ agent: a }: { agent: AgentInfo }) {
  if (!a.tools) return <>every tool of {a.base}</>;
  if (a.tools.length === 0) return <>none</>;
  return <Codes names={a.tools} />;
}

/**
 * One agent: its name, source and description; for a custom one the built-in it narrows, its
 * tools (or every tool of that built-in), the commands `shell` is narrowed to, its mode ceiling,
 * model and reasoning effort, its file, and what of its front matter was left out.
 */
export function AgentItem({ agent: a }: { agent: AgentInfo }) {
  const headId = useId();
  const source = SOURCE[a.source] ?? { text: a.source, title: a.source };
  const custom = a.source !== "builtin";
  const ceiling = ceilingText(a.mode);
  return (
    <li class="extension agent" data-agent={a.name} data-source={a.source} aria-labelledby={headId}>
      <div class="extension-head">
        <h3 id={headId}>{a.name}</h3>
        <span class="chip extension-source" data-source={a.source} title={source.title}>
          <span class="visually-hidden">source: </span>
          {source.text}
        </span>
      </div>
      <p class="extension-desc">
        <VisibleText text={a.description} />
      </p>
      {custom && (
        <dl class="agent-facts small">
          <dt>Base</dt>
          <dd class="agent-base">{BASE[a.base]}</dd>
          <dt>Tools</dt>
          <dd class="agent-tools">
            <Tools agent={a} />
          </dd>
          {a.commands.length > 0 && (
            <>
              <dt>Commands</dt>
              <dd class="agent-commands">
                <code>shell</code> runs only <Codes names={a.commands} />
              </dd>
            </>
          )}
          <dt>Permissions</dt>
          <dd class="agent-mode">{ceiling ?? "the session's mode"}</dd>
          {a.model && (
            <>
              <dt>Model</dt>
              <dd class="agent-model">
                <code>{a.model}</code>
              </dd>
            </>
          )}
          {a.reasoning && (
            <>
              <dt>Reasoning</dt>
              <dd class="agent-reasoning">{a.reasoning}</dd>
            </>
          )}
          {a.file && (
            <>
              <dt>File</dt>
              <dd class="extension-where">
                <code>{a.file}</code>
              </dd>
            </>
          )}
        </dl>
      )}
      {a.skipped.length > 0 && (
        <div class="small agent-skipped">
          Left out of it:
          <ul>
            {a.skipped.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}
