import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { PromptCommand } from "../api/types";
import { agents, refreshAgents } from "../state/agents";
import { useObservable } from "../state/observable";
import { type SlashEntry, slashEntries, slashQuery } from "../state/slash";
import "../slash.css";

/**
 * The `/` command picker of the composer: open while the prompt is `/` and a command name, it
 * lists the built-in commands and the workspace's templates (read again each time it opens) with
 * their descriptions, and after `/agent ` the agents (read again each time that is typed). Like
 * the `@` picker, the textarea keeps the focus and passes its keys here first (`onKey` returns
 * true when the picker used the key): arrows move, Enter picks, Tab completes the name, Esc
 * closes.
 */
export function useSlashCommands(sessionId: string, text: string, choose: (entry: SlashEntry, run: boolean) => void) {
  const query = slashQuery(text);
  const showing = query !== null;
  const [list, setList] = useState<PromptCommand[]>([]);
  // The highlighted entry, for the query it was chosen in: a new query starts at the first again.
  const [chosen, setChosen] = useState<{ query: string | null; index: number }>({ query: null, index: 0 });
  // Each time the prompt becomes a command the picker opens anew (an Esc closes it for that time).
  const opened = useRef({ times: 0, showing: false });
  if (showing && !opened.current.showing) opened.current.times++;
  opened.current.showing = showing;
  const times = showing ? opened.current.times : 0;
  const [dismissed, setDismissed] = useState(0);
  const reading = useRef<Promise<PromptCommand[]> | null>(null);
  const agentList = useObservable(agents);
  const namingAgent = query?.startsWith("agent ") ?? false;

  const read = (): Promise<PromptCommand[]> => {
    // An older server has no commands endpoint: the built-in commands only.
    const p = api.commands(sessionId).then(
      (r) => r.data,
      () => [],
    );
    reading.current = p;
    return p;
  };

  // The workspace's templates are read each time the picker opens: a file added since shows.
  useEffect(() => {
    if (!times) return;
    let live = true;
    void read().then((l) => live && setList(l));
    return () => {
      live = false;
    };
  }, [sessionId, times]);

  // `/agent ` typed: the agents are read again (a file added or trusted since is offered).
  useEffect(() => {
    if (namingAgent) refreshAgents().catch(() => undefined);
  }, [namingAgent, times]);

  const entries = query === null ? [] : slashEntries(query, list, agentList?.data);
  const open = showing && dismissed !== times && entries.length > 0;
  const active = chosen.query === query ? Math.min(chosen.index, entries.length - 1) : 0;
  const current = entries[active];

  const onKey = (e: KeyboardEvent): boolean => {
    if (!open || e.isComposing) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const d = e.key === "ArrowDown" ? 1 : -1;
      setChosen({ query, index: (active + d + entries.length) % entries.length });
    } else if (e.key === "Enter" && !e.shiftKey) {
      choose(current, true);
    } else if (e.key === "Tab" && !e.shiftKey) {
      choose(current, false);
    } else if (e.key === "Escape") {
      setDismissed(times);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };

  return {
    open,
    entries,
    active,
    onKey,
    /** The workspace's templates: the list being read (or read last), else read now. */
    templates: () => reading.current ?? read(),
  };
}

export function SlashList({
  id,
  entries,
  active,
  onPick,
}: {
  id: string;
  entries: SlashEntry[];
  active: number;
  onPick: (e: SlashEntry) => void;
}) {
  return (
    // A long list scrolls, and a scrolling region must be reachable from the keyboard (the
    // textarea keeps the keys that pick; Tab reaches the list to scroll it).
    <ul class="mention-list slash-list" id={id} role="listbox" aria-label="Commands" tabIndex={0}>
      {entries.map((e, i) => (
        <li
          key={e.label}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? "mention slash active" : "mention slash"}
          data-command={e.label}
          // Keep the textarea's focus while picking with the mouse.
          onMouseDown={(ev) => ev.preventDefault()}
          onClick={() => onPick(e)}
        >
          {/* The spaces keep the words apart in the option's accessible name. */}
          <span class="slash-name">/{e.label}</span> {e.template && !e.template.builtin && <span class="slash-kind">{e.template.skill ? "skill" : "workspace"}</span>}{" "}
          {e.description && <span class="slash-desc">{e.description}</span>}
        </li>
      ))}
    </ul>
  );
}
