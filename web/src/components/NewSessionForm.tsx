import { useEffect, useId, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Agent, Mode } from "../api/types";
import { useAction } from "../state/action";
import { agents, refreshAgents } from "../state/agents";
import { serverConfig } from "../state/app";
import { useObservable } from "../state/observable";
import { navigate, sessionPath } from "../state/router";
import { upsertSession } from "../state/sessions";
import { agentChoices, agentLabel } from "../util/agents";
import { FormError } from "./FormError";
import "../agents.css";

const LAST_WS = "tradewind.lastWorkspace";

export function NewSessionForm({ onDone }: { onDone: () => void }) {
  const [workspace, setWorkspace] = useState(() => localStorage.getItem(LAST_WS) ?? "");
  const [title, setTitle] = useState("");
  const [agent, setAgent] = useState<Agent>("build");
  const [mode, setMode] = useState<Mode>("ask");
  const cfg = useObservable(serverConfig);
  const list = useObservable(agents);
  const hintId = useId();

  // The agents are read each time the form opens: a file added or trusted since is offered (a
  // failed read leaves the list read last, or the built-ins).
  useEffect(() => {
    refreshAgents().catch(() => undefined);
  }, []);
  const choices = agentChoices(list, agent);
  const chosen = choices.find((a) => a.name === agent);

  const create = useAction(async () => {
    const s = await api.createSession({
      workspace: workspace.trim() || undefined,
      title: title.trim() || undefined,
      agent,
      mode,
    });
    if (workspace.trim()) localStorage.setItem(LAST_WS, workspace.trim());
    upsertSession(s);
    onDone();
    navigate(sessionPath(s.id));
  });
  const submit = (e: Event) => {
    e.preventDefault();
    void create.run();
  };

  return (
    <form class="new-session" onSubmit={submit} aria-label="New session">
      <label class="field">
        <span>Workspace folder</span>
        <input
          name="workspace"
          value={workspace}
          placeholder={cfg?.workspace ?? "server default"}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => setWorkspace((e.target as HTMLInputElement).value)}
        />
      </label>
      <label class="field">
        <span>Title (optional)</span>
        <input name="title" value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
      </label>
      <div class="field-row">
        <label class="field">
          <span>Agent</span>
          <select
            name="agent"
            value={agent}
            aria-describedby={chosen?.description ? hintId : undefined}
            onChange={(e) => setAgent((e.target as HTMLSelectElement).value as Agent)}
          >
            {choices.map((a) => (
              <option key={a.name} value={a.name} title={a.description}>
                {agentLabel(a)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Permissions</span>
          <select name="mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode)}>
            <option value="ask">ask</option>
            <option value="auto">auto</option>
            <option value="full">full</option>
          </select>
        </label>
      </div>
      {chosen?.description && (
        <p class="small muted agent-hint" id={hintId} data-agent-hint={chosen.name}>
          {chosen.description}
        </p>
      )}
      <FormError error={create.error} small />
      <button type="submit" class="btn primary" disabled={create.busy}>
        {create.busy ? "Creating…" : "Create session"}
      </button>
    </form>
  );
}
