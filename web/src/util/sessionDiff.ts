// What `/diff` shows: the files a session changed, read from its events. Each write or edit of a
// file tool leaves its unified patch in the `tool_result` (a `diff` part); a rewind
// (`session_reverted`) and a redo (`revert_undone`) name the files they put back. Together, in
// order, they are each file's history in this session. A command that changed a file leaves no
// patch: the revert dry run names such files (`unrecordedPaths`).
import type { DiffPart, EventFrame, RevertFile } from "../api/types";
import { parsePatch } from "../render/diff";

/** One thing that happened to a file, with the prompt whose turn did it. */
export type FileStep =
  | { kind: "diff"; seq: number; tool: string; part: DiffPart; prompt: string | null }
  /** A rewind to before `prompt` put it back (`restored`) or removed it (`deleted`). */
  | { kind: "revert"; seq: number; action: string; prompt: string | null }
  /** A redo brought back what a rewind had undone. */
  | { kind: "redo"; seq: number; action: string; prompt: null };

export interface FileChanges {
  path: string;
  /** Oldest first. */
  steps: FileStep[];
  /** Lines the patches added and removed, all steps together. */
  added: number;
  removed: number;
}

/** A path as the tools and the reverts both name it: `./` and a trailing `/` dropped. */
function samePath(p: string): string {
  return p.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
}

const field = (e: EventFrame, key: string): unknown => (e as Record<string, unknown>)[key];

function revertFiles(e: EventFrame): RevertFile[] {
  const files = field(e, "files");
  return Array.isArray(files) ? files.filter((f): f is RevertFile => typeof f?.path === "string") : [];
}

/** The files the events show changed, in the order each was first changed, each with its steps. */
export function sessionChanges(events: readonly EventFrame[]): FileChanges[] {
  const files = new Map<string, FileChanges>();
  const prompts = new Map<string, string>();
  let prompt: string | null = null;
  const add = (path: string, step: FileStep) => {
    const key = samePath(path);
    let f = files.get(key);
    if (!f) {
      f = { path: key, steps: [], added: 0, removed: 0 };
      files.set(key, f);
    }
    f.steps.push(step);
    if (step.kind === "diff") {
      const parsed = parsePatch(step.part.patch);
      f.added += parsed.added;
      f.removed += parsed.removed;
    }
  };
  for (const e of events) {
    switch (e.type) {
      case "user_message": {
        const text = field(e, "text");
        prompt = typeof text === "string" ? text : null;
        const id = field(e, "message_id");
        if (typeof id === "string" && prompt !== null) prompts.set(id, prompt);
        break;
      }
      case "tool_result": {
        const parts = field(e, "parts");
        const tool = field(e, "tool");
        if (!Array.isArray(parts)) break;
        for (const p of parts as { type?: unknown }[]) {
          if (p?.type === "diff") {
            const part = p as DiffPart;
            add(part.path, { kind: "diff", seq: e.seq, tool: typeof tool === "string" ? tool : "", part, prompt });
          }
        }
        break;
      }
      case "session_reverted": {
        const id = field(e, "message_id");
        const to = typeof id === "string" ? (prompts.get(id) ?? null) : null;
        for (const f of revertFiles(e)) add(f.path, { kind: "revert", seq: e.seq, action: f.action, prompt: to });
        break;
      }
      case "revert_undone":
        for (const f of revertFiles(e)) add(f.path, { kind: "redo", seq: e.seq, action: f.action, prompt: null });
        break;
    }
  }
  return [...files.values()];
}

/** The `message_id` of the session's first prompt: a dry run of a rewind to it names every file changed since. */
export function firstMessageId(events: readonly EventFrame[]): string | null {
  for (const e of events) {
    const id = field(e, "message_id");
    if (e.type === "user_message" && typeof id === "string") return id;
  }
  return null;
}

/** The paths the dry run names that no patch of the events covers: changed by a command. */
export function unrecordedPaths(changes: readonly FileChanges[], dryRun: readonly RevertFile[]): string[] {
  const known = new Set(changes.filter((c) => c.steps.some((s) => s.kind === "diff")).map((c) => c.path));
  const out: string[] = [];
  for (const f of dryRun) {
    const p = samePath(f.path);
    if (!known.has(p) && !out.includes(p)) out.push(p);
  }
  return out;
}
