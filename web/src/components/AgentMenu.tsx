import { useEffect } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Agent, Session } from "../api/types";
import { useAction } from "../state/action";
import { agents, refreshAgents } from "../state/agents";
import { useObservable } from "../state/observable";
import { upsertSession } from "../state/sessions";
import { agentChoices, agentLabel } from "../util/agents";
import { FormError } from "./FormError";
import "../agents.css";

/**
 * The session header's agent: a list of every agent the server's workspace has (`build`, `plan`,
 * then the custom ones), switching the session to the one chosen from its next run. Shows the
 * session as the server last said; a refusal (an unknown agent, 422; a token without `admin`,
 * 403) is said next to it in the server's words.
 */
export function AgentMenu({ session }: { session: Session }) {
  const list = useObservable(agents);
  const change = useAction(
    async (agent: Agent) => upsertSession(await api.patchSession(session.id, { agent })),
    { message: (e) => `Not changed: ${errorText(e)}` },
  );

  // Read again for each session shown: an agent file added or trusted since is offered.
  useEffect(() => {
    refreshAgents().catch(() => undefined);
  }, [session.id]);

  const choices = agentChoices(list, session.agent);
  const current = choices.find((a) => a.name === session.agent);
  const hint = current?.description || "Not one of this server's workspace's agents";
  return (
    <span class="agent-menu">
      <label title={`The agent this session runs as (from its next run): ${hint}`}>
        <span class="agent-label">Agent</span>
        <select
          name="agent"
          aria-label="Agent"
          value={session.agent}
          data-agent={session.agent}
          disabled={change.busy}
          onChange={(e) => {
            const select = e.target as HTMLSelectElement;
            const agent = select.value;
            // The list shows the session's agent as the server says it until the answer comes.
            select.value = session.agent;
            void change.run(agent);
          }}
        >
          {choices.map((a) => (
            <option key={a.name} value={a.name} title={a.description}>
              {agentLabel(a)}
            </option>
          ))}
        </select>
      </label>
      <FormError error={change.error} small inline />
    </span>
  );
}
