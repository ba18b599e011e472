// The session review's own state, apart from its views: the file tree with each folder's counts,
// the rows of a hunk, where each line comment shows, the lines picked for a new comment, and which
// files the user marked viewed (kept in this browser, by a fingerprint of the file's hunks, so a
// file that changes again is no longer marked). Pure, but for the two functions that read and
// write localStorage.
import type { CommentSide, ReviewComment, ReviewFile, ReviewHunk, SessionReview } from "../api/types";
import type { DiffLine } from "../render/diff";

// ---- The file tree ----------------------------------------------------------

export interface TreeFolder {
  kind: "folder";
  /** Its name, or a chain of folders that hold only one folder each (`src/app`). */
  name: string;
  path: string;
  children: TreeNode[];
  files: number;
  added: number;
  removed: number;
}

export interface TreeFile {
  kind: "file";
  name: string;
  path: string;
  file: ReviewFile;
}

export type TreeNode = TreeFolder | TreeFile;

const byName = (a: TreeNode, b: TreeNode) =>
  Number(a.kind === "file") - Number(b.kind === "file") || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The files as folders and files (folders first, by name), each folder with its totals. */
export function fileTree(files: readonly ReviewFile[]): TreeNode[] {
  const root: TreeFolder = { kind: "folder", name: "", path: "", children: [], files: 0, added: 0, removed: 0 };
  const folders = new Map<string, TreeFolder>([["", root]]);
  for (const f of files) {
    const parts = f.path.split("/").filter(Boolean);
    let dir = root;
    let path = "";
    for (const part of parts.slice(0, -1)) {
      path = path ? `${path}/${part}` : part;
      let next = folders.get(path);
      if (!next) {
        next = { kind: "folder", name: part, path, children: [], files: 0, added: 0, removed: 0 };
        folders.set(path, next);
        dir.children.push(next);
      }
      dir = next;
    }
    dir.children.push({ kind: "file", name: parts[parts.length - 1] ?? f.path, path: f.path, file: f });
  }
  const finish = (d: TreeFolder): TreeFolder => {
    d.children = d.children.map((c) => (c.kind === "folder" ? squash(finish(c)) : c)).sort(byName);
    for (const c of d.children) {
      d.files += c.kind === "folder" ? c.files : 1;
      d.added += c.kind === "folder" ? c.added : c.file.added;
      d.removed += c.kind === "folder" ? c.removed : c.file.removed;
    }
    return d;
  };
  return finish(root).children;
}

/** A folder holding one folder and nothing else is shown as one (`src/app`). */
function squash(d: TreeFolder): TreeFolder {
  const only = d.children.length === 1 ? d.children[0] : null;
  return only?.kind === "folder" ? { ...only, name: `${d.name}/${only.name}` } : d;
}

/** The files in the tree's order, top to bottom: the order the review lists them in. */
export function treeOrder(nodes: readonly TreeNode[]): ReviewFile[] {
  const out: ReviewFile[] = [];
  const walk = (ns: readonly TreeNode[]) => {
    for (const n of ns) {
      if (n.kind === "file") out.push(n.file);
      else walk(n.children);
    }
  };
  walk(nodes);
  return out;
}

/**
 * A review read again, with the files that did not change kept as they were (the same objects),
 * so that only the files that changed are drawn again. Each file is compared by its fingerprint
 * and by which of its hunks are staged.
 */
export function keepUnchanged(prev: SessionReview | null, next: SessionReview): SessionReview {
  if (!prev) return next;
  const old = new Map(prev.files.map((f) => [f.path, f]));
  let kept = 0;
  const files = next.files.map((f) => {
    const o = old.get(f.path);
    const same =
      o !== undefined &&
      o.status === f.status &&
      o.added === f.added &&
      o.removed === f.removed &&
      o.binary === f.binary &&
      o.hunks.length === f.hunks.length &&
      o.hunks.every((h, i) => h.staged === f.hunks[i].staged) &&
      fileHash(o) === fileHash(f);
    if (!same) return f;
    kept++;
    return o;
  });
  return kept === 0 ? next : { ...next, files };
}

// ---- Rows --------------------------------------------------------------------

/** A hunk's lines as the diff tables draw them. */
export function hunkLines(h: ReviewHunk): DiffLine[] {
  return h.lines.map((l) => ({
    kind: l.kind === "context" ? "ctx" : l.kind,
    text: l.text,
    oldNo: l.old ?? null,
    newNo: l.new ?? null,
  }));
}

/** The lines a file's hunks (the session's and those changed outside it) hold. */
export function lineCount(f: ReviewFile): number {
  let n = 0;
  for (const h of f.hunks) n += h.lines.length;
  for (const h of f.outside ?? []) n += h.lines.length;
  return n;
}

// ---- Comments on lines ---------------------------------------------------------

/** Where a comment shows: under the row of its last line, on its side. */
export const anchorKey = (side: CommentSide, line: number): string => `${side}:${line}`;

/** The anchors a row of a diff offers: a removed line its old number, any other line its new one (and old one). */
export function rowAnchors(l: DiffLine): string[] {
  const out: string[] = [];
  if (l.newNo !== null) out.push(anchorKey("new", l.newNo));
  if (l.oldNo !== null) out.push(anchorKey("old", l.oldNo));
  return out;
}

/**
 * A file's comments by the row they show under; those on a line no hunk of the file shows (the
 * lines changed since) are in `elsewhere`.
 */
export function placeComments(f: ReviewFile, comments: readonly ReviewComment[]): { at: Map<string, ReviewComment[]>; elsewhere: ReviewComment[] } {
  if (comments.length === 0) return { at: new Map(), elsewhere: [] };
  const shown = new Set<string>();
  for (const h of f.hunks) for (const l of hunkLines(h)) for (const k of rowAnchors(l)) shown.add(k);
  const at = new Map<string, ReviewComment[]>();
  const elsewhere: ReviewComment[] = [];
  for (const c of comments) {
    const k = anchorKey(c.side, c.end_line);
    if (!shown.has(k)) {
      elsewhere.push(c);
      continue;
    }
    const list = at.get(k);
    if (list) list.push(c);
    else at.set(k, [c]);
  }
  return { at, elsewhere };
}

/** The lines picked for a new comment: one file, one side, `start` to `end`. */
export interface LineSelection {
  path: string;
  side: CommentSide;
  start: number;
  end: number;
}

/**
 * The selection after a click on a line's number: with `extend` (Shift held) a selection of the
 * same file and side grows to take the line in; anything else starts anew on it.
 */
export function pickLine(cur: LineSelection | null, path: string, side: CommentSide, line: number, extend: boolean): LineSelection {
  if (extend && cur && cur.path === path && cur.side === side) {
    return { path, side, start: Math.min(cur.start, line), end: Math.max(cur.end, line) };
  }
  return { path, side, start: line, end: line };
}

/** Whether the selection takes in line `line` of `side`. */
export function picked(sel: LineSelection | null, side: CommentSide, line: number | null): boolean {
  return sel !== null && line !== null && sel.side === side && line >= sel.start && line <= sel.end;
}

// ---- Viewed ----------------------------------------------------------------------

/** A fingerprint of what a file's diff shows (FNV-1a over its status, hunks and lines). */
export function fileHash(f: ReviewFile): string {
  let h = 0x811c9dc5;
  const add = (s: string) => {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  };
  add(f.status);
  for (const hunks of [f.hunks, f.outside ?? []]) {
    add("\u0001");
    for (const hk of hunks) {
      add(hk.header);
      for (const l of hk.lines) {
        add(l.kind);
        add(l.text);
        add("\n");
      }
    }
  }
  return (h >>> 0).toString(36);
}

/** The files marked viewed in a session: path → the fingerprint of the diff that was viewed. */
export type ViewedMarks = Readonly<Record<string, string>>;

const viewedKey = (session: string) => `tradewind.viewed.${session}`;

export function readViewed(session: string): ViewedMarks {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(viewedKey(session)) ?? "{}");
    return typeof v === "object" && v !== null ? (v as ViewedMarks) : {};
  } catch {
    return {};
  }
}

/** The marks with `path` marked viewed at `hash`, or not viewed (`hash` null); stored. */
export function markViewed(session: string, marks: ViewedMarks, path: string, hash: string | null): ViewedMarks {
  const next: Record<string, string> = { ...marks };
  if (hash === null) delete next[path];
  else next[path] = hash;
  try {
    if (Object.keys(next).length === 0) localStorage.removeItem(viewedKey(session));
    else localStorage.setItem(viewedKey(session), JSON.stringify(next));
  } catch {
    // Storage refused: the marks hold for this page only.
  }
  return next;
}
