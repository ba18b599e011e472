// The agents a session can run as (`GET /api/agents`), shared by the New session form, the session
// header's agent picker, `/agent` and Settings → Agents: read when one of them needs it and after a
// trust made here. No event tells of an agent file added or edited, so the pickers read the list
// again when they open.
import { api } from "../api/client";
import type { AgentList } from "../api/types";
import { Observable } from "./observable";

export const agents = new Observable<AgentList | null>(null);

let reads = 0;
let asked = false;

/** Read the list now (an older read still on its way no longer counts). Rejects when it cannot be read. */
export function refreshAgents(): Promise<AgentList> {
  const mine = ++reads;
  asked = true;
  return api.agents().then((l) => {
    if (mine === reads) agents.set(l);
    return l;
  });
}

/** Read the list once if nothing asked for it yet (a failure is retried the next time). */
export function ensureAgents(): void {
  if (agents.get() || asked) return;
  refreshAgents().catch(() => {
    asked = false;
  });
}

/** The list as a trust answered it: every picker shows the workspace's agents at once. */
export function setAgents(list: AgentList): void {
  reads++;
  agents.set(list);
}
