import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { AgentList } from "../api/types";
import { agents, refreshAgents, setAgents } from "../state/agents";
import { useTrust } from "../state/trust";
import { AgentItem } from "./AgentItem";
import { FormError } from "./FormError";
import { SkippedList } from "./SkippedList";
import { TrustBanner } from "./TrustBanner";
import "../extensions.css";

/** What the page says when the agents changed between being shown and being trusted. */
const CHANGED = "The workspace's agents changed since they were shown: they are shown again as they are now. Read them, then trust them again.";

const EXAMPLE = `---
description: Review the changes for bugs before a commit; never edits.
tools: Read, Grep, Glob, Bash(git diff:*)
mode: auto
model: sonnet
---
You are a careful code reviewer. Read the diff, then list the problems,
most serious first.`;

/** Where custom agents go: shown when there is none, folded away under the list otherwise. */
function AgentsHelp() {
  return (
    <>
      <p class="small">
        A custom agent is a Markdown file, Claude Code's subagent format: named after the file, its front matter
        has a <code>description</code> and may narrow it (<code>tools</code>, Claude's names or ours;{" "}
        <code>Bash(git diff:*)</code> lets <code>shell</code> run only those commands; <code>mode</code>, a ceiling;{" "}
        <code>model</code>; <code>reasoning</code>; <code>base: plan</code> for a read-only one), and the text after
        it is its instructions. Put it in this workspace's <code>.tradewind/agents/&lt;name&gt;.md</code> (or{" "}
        <code>.claude/agents</code>), or for every workspace in <code>agents/</code> of the state directory (
        <code>$TRADEWIND_HOME</code>, by default <code>~/.tradewind</code>). For example,{" "}
        <code>code-reviewer.md</code>:
      </p>
      <pre class="extension-example">{EXAMPLE}</pre>
    </>
  );
}

/**
 * Settings → Agents: the agents a session of the server's workspace can run as — `build` and
 * `plan`, then the custom ones (the workspace's once trusted, the user's always, the enabled
 * plugins'), each with its source, description, base, tools, commands, mode ceiling, model,
 * reasoning effort and file; trust the workspace's as they are; the files left out and why.
 */
export function AgentsPanel() {
  const [list, setList] = useState<AgentList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = () =>
    refreshAgents().then(
      (l) => {
        setList(l);
        setLoadError(null);
      },
      (e) => setLoadError(`Could not load the agents: ${errorText(e)}`),
    );

  useEffect(() => {
    void load();
  }, []);
  // The list the pickers share, read again elsewhere (a plugin switched on or off): shown here too.
  useEffect(
    () =>
      agents.subscribe((l) => {
        if (!l) return;
        setList(l);
        setLoadError(null);
      }),
    [],
  );

  const trust = useTrust(
    api.trustAgents,
    load,
    (l) => {
      setList(l);
      // The pickers (New session, the session header) offer them at once.
      setAgents(l);
      setStatus("Trusted: the workspace's agents are listed below.");
      // The banner and its button are gone: the focus goes to the panel's title.
      heading.current?.focus();
    },
    CHANGED,
  );

  const held = list?.untrusted && list.workspace_hash;
  const trustedWorkspace = list && !list.untrusted && list.workspace_hash;
  const custom = list?.data.filter((a) => a.source !== "builtin") ?? [];

  return (
    <section class="card agents" aria-labelledby="agents-h">
      <h2 id="agents-h" tabIndex={-1} ref={heading}>
        Agents
      </h2>
      <p class="muted small">
        What a session runs as: <code>build</code>, <code>plan</code>, or a custom agent that narrows one of them to
        some tools, a mode ceiling and a model, with instructions of its own. Choose one in New session, in a session's
        header or with <code>/agent NAME</code>. An agent never widens what a session may do: every call still goes
        through its permissions.
      </p>
      {held && (
        <TrustBanner
          what="agents"
          where={
            <>
              <code>.tradewind/agents</code>, <code>.claude/agents</code>
            </>
          }
          hash={held}
          busy={trust.busy}
          onTrust={(h) => void trust.run(h)}
        >
          <FormError error={trust.error} small data-trust-error />
        </TrustBanner>
      )}
      {!held && <FormError error={trust.error} small data-trust-error />}
      {trustedWorkspace && (
        <p class="muted small" data-agents-trusted>
          This workspace's agents are trusted as they are now; a change holds them back until you trust them again.
        </p>
      )}
      {status && (
        <p class="ok small" role="status">
          {status}
        </p>
      )}
      {list && (
        <ul class="extension-list agent-list" aria-label="Agents">
          {list.data.map((a) => (
            <AgentItem key={a.name} agent={a} />
          ))}
        </ul>
      )}
      {list && custom.length === 0 && (
        <div class="extension-empty" data-agents-empty>
          <p>{held ? "No custom agent is in use until this workspace's are trusted." : "No custom agent yet."}</p>
          <AgentsHelp />
        </div>
      )}
      {custom.length > 0 && (
        <details class="extension-help">
          <summary>Adding an agent</summary>
          <AgentsHelp />
        </details>
      )}
      {list && list.skipped.length > 0 && <SkippedList lines={list.skipped} data-agents-skipped />}
      <FormError error={loadError} />
    </section>
  );
}
