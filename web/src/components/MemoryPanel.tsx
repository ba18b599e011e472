import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api/client";
import type { Memory, MemoryList } from "../api/types";
import { useAction } from "../state/action";
import { relativeTime } from "../util/format";
import { FormError } from "./FormError";
import "../models.css";
import { askConfirm } from "../state/confirm";

/** How long the search field waits for more typing before it asks the server. */
const SEARCH_DELAY_MS = 200;

const SCOPE: Record<string, { text: string; title: string }> = {
  workspace: { text: "workspace", title: "Kept for this workspace: its sessions see it." },
  user: { text: "user", title: "Kept for you: sessions of every workspace see it." },
};

/** What a memory is called in a button's name: its key, else the start of its text. */
function memoryName(m: Memory): string {
  if (m.key) return m.key;
  return m.text.length > 40 ? `${m.text.slice(0, 40)}…` : m.text;
}

/** Where the focus goes once the list has rendered after an action. */
type FocusTarget = { id: string; on: "edit" | "text" } | "title";

/**
 * Settings → Memory: the notes the agent keeps with `memory_write` (this server's workspace's
 * and the user's), searched by their words; edit a note's text or delete it.
 */
export function MemoryPanel() {
  const [query, setQuery] = useState("");
  const [list, setList] = useState<MemoryList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  /** The memory the last delete was for: its row shows why it failed. */
  const [removedId, setRemovedId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const focusNext = useRef<FocusTarget | null>(null);
  const section = useRef<HTMLElement>(null);
  const editErrorId = useId();
  const first = useRef(true);

  // The list for the current words: at once the first time, then once the typing pauses; an
  // answer for older words is dropped.
  useEffect(() => {
    const ctl = new AbortController();
    const load = () =>
      api.memories(query, ctl.signal).then(
        (l) => {
          setList(l);
          setLoadError(null);
        },
        (e) => {
          if (!ctl.signal.aborted) setLoadError(`Could not load the memories: ${errorText(e)}`);
        },
      );
    if (first.current) {
      first.current = false;
      void load();
      return () => ctl.abort();
    }
    const t = setTimeout(() => void load(), SEARCH_DELAY_MS);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [query]);

  // Move the focus where the last action left it, in the commit that shows the change.
  useLayoutEffect(() => {
    const t = focusNext.current;
    const root = section.current;
    if (!t || !root) return;
    focusNext.current = null;
    const el =
      t === "title"
        ? root.querySelector<HTMLElement>("h2")
        : root.querySelector<HTMLElement>(`[data-memory="${t.id}"] ${t.on === "edit" ? ".memory-edit" : "textarea"}`);
    el?.focus();
  });

  const startEdit = (m: Memory) => {
    setEditing(m.id);
    setDraft(m.text);
    save.setError(null);
    remove.setError(null);
    setStatus(null);
    focusNext.current = { id: m.id, on: "text" };
  };

  const cancelEdit = (id: string) => {
    setEditing(null);
    save.setError(null);
    focusNext.current = { id, on: "edit" };
  };

  const save = useAction(
    async (m: Memory) => {
      const saved = await api.patchMemory(m.id, draft);
      setList((l) => l && { ...l, data: l.data.map((x) => (x.id === saved.id ? saved : x)) });
      setEditing(null);
      setStatus("Saved.");
      focusNext.current = { id: m.id, on: "edit" };
    },
    { message: (e) => `Not saved: ${errorText(e)}` },
  );

  const remove = useAction(
    async (m: Memory) => {
      setRemovedId(m.id);
      setStatus(null);
      await api.deleteMemory(m.id);
      if (editing === m.id) setEditing(null);
      setList((l) => l && { ...l, data: l.data.filter((x) => x.id !== m.id) });
      setStatus("Deleted.");
      focusNext.current = "title";
    },
    { message: (e) => `Not deleted: ${errorText(e)}` },
  );
  const askRemove = async (m: Memory) => {
    if (remove.busy) return;
    const ok = await askConfirm({ title: `Delete the memory “${memoryName(m)}”?`, body: "The agent no longer sees it.", confirm: "Delete", danger: true });
    if (ok) void remove.run(m);
  };
  const deleting = remove.running?.[0].id ?? null;

  const searching = query.trim() !== "";

  return (
    <section class="card memories" aria-labelledby="memories-h" ref={section}>
      <h2 id="memories-h" tabIndex={-1}>
        Memory
      </h2>
      <p class="muted small">
        Notes the agent keeps for later sessions: a workspace's notes are seen by that workspace's sessions, yours by
        every session. Storing one of yours asks for your approval first.
      </p>
      <label class="field">
        <span>Search memories</span>
        <input
          type="search"
          class="memory-search"
          value={query}
          autocomplete="off"
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
      </label>
      {list && list.data.length === 0 && (
        <p data-memories-empty>
          {searching ? (
            <>No memory matches “{query.trim()}”.</>
          ) : (
            <>
              Nothing kept yet: the agent keeps notes with <code>memory_write</code>.
            </>
          )}
        </p>
      )}
      {list && list.data.length > 0 && (
        <ul class="provider-list memory-list" aria-label={searching ? "Memories found" : "Memories"}>
          {list.data.map((m) => (
            <MemoryItem
              key={m.id}
              memory={m}
              editing={editing === m.id}
              draft={draft}
              saving={save.busy}
              editError={editing === m.id ? save.error : null}
              editErrorId={editErrorId}
              deleting={deleting === m.id}
              rowError={removedId === m.id ? remove.error : null}
              onEdit={() => (editing === m.id ? cancelEdit(m.id) : startEdit(m))}
              onDraft={setDraft}
              onSave={() => void save.run(m)}
              onCancel={() => cancelEdit(m.id)}
              onDelete={() => askRemove(m)}
            />
          ))}
        </ul>
      )}
      {status && (
        <p class="ok small" role="status">
          {status}
        </p>
      )}
      {loadError && (
        <p class="error" role="alert">
          {loadError}
        </p>
      )}
    </section>
  );
}

/** One memory: its scope, key, when it changed, its text (or the editor) and Edit / Delete. */
function MemoryItem({
  memory: m,
  editing,
  draft,
  saving,
  editError,
  editErrorId,
  deleting,
  rowError,
  onEdit,
  onDraft,
  onSave,
  onCancel,
  onDelete,
}: {
  memory: Memory;
  editing: boolean;
  draft: string;
  saving: boolean;
  editError: string | null;
  editErrorId: string;
  deleting: boolean;
  rowError: string | null;
  onEdit: () => void;
  onDraft: (text: string) => void;
  onSave: () => void;
  onCancel: () => void;
  onDelete: () => void;
}) {
  const headId = useId();
  const scope = SCOPE[m.scope] ?? { text: m.scope, title: m.scope };
  const name = memoryName(m);
  const idle = !deleting && !(editing && saving);
  return (
    <li class="provider memory" data-memory={m.id} data-scope={m.scope} aria-labelledby={headId}>
      <div class="provider-head">
        <h3 id={headId}>{m.key ?? <span class="muted">no key</span>}</h3>
        <span class="chip memory-scope" data-scope={m.scope} title={scope.title}>
          <span class="visually-hidden">scope: </span>
          {scope.text}
        </span>
        <time class="muted small" dateTime={new Date(m.updated_at).toISOString()} title={new Date(m.updated_at).toLocaleString()}>
          updated {relativeTime(m.updated_at)}
        </time>
        {/* aria-disabled, not disabled: a focused button keeps the focus while its request runs. */}
        <span class="provider-actions">
          <button
            type="button"
            class="btn small memory-edit"
            aria-label={`Edit memory ${name}`}
            aria-expanded={editing}
            aria-disabled={!idle}
            onClick={() => idle && onEdit()}
          >
            Edit
          </button>
          <button
            type="button"
            class="btn small danger memory-delete"
            aria-label={`Delete memory ${name}`}
            aria-disabled={!idle}
            onClick={() => idle && onDelete()}
          >
            {deleting ? "Deleting…" : "Delete"}
          </button>
        </span>
      </div>
      {editing ? (
        <form
          class="memory-editor"
          onSubmit={(e) => {
            e.preventDefault();
            onSave();
          }}
        >
          <label class="field">
            <span>Text of the memory</span>
            <textarea
              rows={4}
              value={draft}
              aria-invalid={editError ? true : undefined}
              aria-describedby={editError ? editErrorId : undefined}
              onInput={(e) => onDraft((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (e.key === "Escape") {
                  e.preventDefault();
                  onCancel();
                } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  onSave();
                }
              }}
            />
          </label>
          <FormError error={editError} small id={editErrorId} />
          <p class="row">
            <button type="submit" class="btn small primary" aria-disabled={saving}>
              {saving ? "Saving…" : "Save"}
            </button>
            <button type="button" class="btn small" onClick={onCancel}>
              Cancel
            </button>
          </p>
        </form>
      ) : (
        // Newlines the agent wrote are kept.
        <p class="memory-text small" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
          {m.text}
        </p>
      )}
      <FormError error={rowError} small />
    </li>
  );
}
