import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Agent, DirListing, Mode } from "../api/types";
import { useAction } from "../state/action";
import { agents, refreshAgents } from "../state/agents";
import { serverConfig } from "../state/app";
import { useObservable } from "../state/observable";
import { navigate, sessionPath } from "../state/router";
import { upsertSession } from "../state/sessions";
import { agentChoices, agentLabel } from "../util/agents";
import { FormError } from "./FormError";
import { WorkspaceField } from "./WorkspaceField";
import { WorktreeField, useBranches } from "./WorktreeField";
import "../agents.css";

const MODES: Mode[] = ["ask", "auto", "full"];

/**
 * "+ New": a session's workspace (pre-filled with the last one used, selected so typing replaces
 * it, and warned about when it is a system folder or the home folder), a worktree of its own when
 * that folder is in a git repository (and the branch it starts from), title, agent and mode (the
 * server's default shown chosen until another is picked).
 */
export function NewSessionForm({ onDone }: { onDone: () => void }) {
  const [workspace, setWorkspace] = useState("");
  const [title, setTitle] = useState("");
  const [agent, setAgent] = useState<Agent>("build");
  // null: not picked, the server applies its default mode (shown chosen).
  const [mode, setMode] = useState<Mode | null>(null);
  const [home, setHome] = useState<DirListing | null>(null);
  const [worktree, setWorktree] = useState(false);
  /** null: the main checkout's branch. */
  const [base, setBase] = useState<string | null>(null);
  const cfg = useObservable(serverConfig);
  const list = useObservable(agents);
  const hintId = useId();
  const wsInput = useRef<HTMLInputElement | null>(null);
  // The user has typed or picked a folder: the last one used no longer replaces it.
  const touched = useRef(false);
  const [prefilled, setPrefilled] = useState(false);
  const shownMode = mode ?? cfg?.default_mode ?? "ask";

  useLayoutEffect(() => wsInput.current?.focus(), []);

  // The recent workspaces and the home folder, read each time the form opens; the last used one
  // fills the field unless something was typed meanwhile (a failed read leaves it to type).
  useEffect(() => {
    api.dirs().then(
      (l) => {
        setHome(l);
        const last = l.recent[0]?.path;
        if (last && !touched.current) {
          setWorkspace(last);
          setPrefilled(true);
        }
      },
      () => undefined,
    );
  }, []);

  // Selected once filled, so that typing replaces it.
  useLayoutEffect(() => {
    const el = wsInput.current;
    if (prefilled && el && document.activeElement === el) el.select();
  }, [prefilled]);

  // The agents are read each time the form opens: a file added or trusted since is offered (a
  // failed read leaves the list read last, or the built-ins).
  useEffect(() => {
    refreshAgents().catch(() => undefined);
  }, []);
  // A folder in a git repository offers a worktree of the session's own.
  const branches = useBranches(workspace.trim() || cfg?.workspace || "");
  const baseKnown = base !== null && branches?.branches.includes(base) ? base : null;
  const choices = agentChoices(list, agent);
  const chosen = choices.find((a) => a.name === agent);

  const create = useAction(async () => {
    const s = await api.createSession({
      workspace: workspace.trim() || undefined,
      title: title.trim() || undefined,
      agent,
      ...(mode ? { mode } : {}),
      ...(branches ? { worktree, ...(worktree && baseKnown ? { base: baseKnown } : {}) } : {}),
    });
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
      <WorkspaceField
        value={workspace}
        onChange={(w) => {
          touched.current = true;
          setWorkspace(w);
        }}
        placeholder={cfg?.workspace ?? "server default"}
        home={home}
        inputRef={wsInput}
      />
      {branches && (
        <WorktreeField
          branches={branches}
          on={worktree}
          base={baseKnown}
          onChange={(on, b) => {
            setWorktree(on);
            setBase(b);
          }}
        />
      )}
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
          <select name="mode" value={shownMode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m === cfg?.default_mode ? `${m} (server default)` : m}
              </option>
            ))}
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
