// Unified patch → rows for the diff viewer (unified and split layouts).

export type LineKind = "ctx" | "add" | "del" | "meta";

export interface DiffLine {
  kind: LineKind;
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

export interface Hunk {
  header: string;
  oldStart: number;
  newStart: number;
  lines: DiffLine[];
}

export interface ParsedDiff {
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

function stripPrefix(p: string): string {
  const path = p.replace(/\t.*$/, "");
  if (path === "/dev/null") return path;
  return path.replace(/^[ab]\//, "");
}

export function parsePatch(patch: string): ParsedDiff {
  const out: ParsedDiff = { oldPath: null, newPath: null, hunks: [], added: 0, removed: 0 };
  const lines = patch.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  let hunk: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of lines) {
    if (hunk && oldLeft <= 0 && newLeft <= 0 && !line.startsWith("\\")) hunk = null;
    const m = hunk ? null : HUNK.exec(line);
    if (m) {
      oldNo = Number(m[1]);
      newNo = Number(m[3]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      hunk = { header: line, oldStart: oldNo, newStart: newNo, lines: [] };
      out.hunks.push(hunk);
      continue;
    }
    if (!hunk) {
      if (line.startsWith("--- ")) out.oldPath = stripPrefix(line.slice(4));
      else if (line.startsWith("+++ ")) out.newPath = stripPrefix(line.slice(4));
      continue;
    }
    const c = line[0];
    if (c === "+") {
      hunk.lines.push({ kind: "add", text: line.slice(1), oldNo: null, newNo: newNo++ });
      newLeft--;
      out.added++;
    } else if (c === "-") {
      hunk.lines.push({ kind: "del", text: line.slice(1), oldNo: oldNo++, newNo: null });
      oldLeft--;
      out.removed++;
    } else if (c === "\\") {
      hunk.lines.push({ kind: "meta", text: line.slice(1).trim(), oldNo: null, newNo: null });
    } else {
      hunk.lines.push({ kind: "ctx", text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
      oldLeft--;
      newLeft--;
    }
  }
  return out;
}

export interface Fold {
  kind: "fold";
  id: string;
  lines: DiffLine[];
}

export type Segment = DiffLine | Fold;

/** Collapse long runs of unchanged lines, keeping `keep` lines of context on each side. */
export function foldContext(lines: DiffLine[], hunkIndex: number, keep = 3, min = 8): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== "ctx") {
      out.push(lines[i++]);
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j].kind === "ctx") j++;
    const run = lines.slice(i, j);
    const head = i === 0 ? 0 : keep;
    const tail = j === lines.length ? 0 : keep;
    if (run.length - head - tail >= min) {
      out.push(...run.slice(0, head));
      out.push({ kind: "fold", id: `${hunkIndex}:${i}`, lines: run.slice(head, run.length - tail) });
      out.push(...run.slice(run.length - tail));
    } else {
      out.push(...run);
    }
    i = j;
  }
  return out;
}

export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/** Pair deletions with additions side by side. */
export function splitRows(lines: DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let k = 0; k < n; k++) rows.push({ left: dels[k] ?? null, right: adds[k] ?? null });
    dels = [];
    adds = [];
  };
  for (const l of lines) {
    if (l.kind === "del") dels.push(l);
    else if (l.kind === "add") adds.push(l);
    else {
      flush();
      rows.push(l.kind === "meta" ? { left: l, right: null } : { left: l, right: l });
    }
  }
  flush();
  return rows;
}
