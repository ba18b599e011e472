// The session review's state without a DOM: the file tree and its counts, where comments show,
// the lines picked for a comment, and the fingerprint "Viewed" is kept against.
import { describe, expect, it } from "vitest";
import type { ReviewComment, ReviewFile, ReviewHunk } from "../api/types";
import { fileHash, fileTree, hunkLines, keepUnchanged, pickLine, placeComments, treeOrder } from "./review";

const hunk = (header: string, lines: ReviewHunk["lines"]): ReviewHunk => ({
  header,
  lines,
  old_start: 1,
  old_lines: 3,
  new_start: 1,
  new_lines: 3,
});
const file = (path: string, added = 1, removed = 1, hunks: ReviewHunk[] = []): ReviewFile => ({ path, status: "modified", added, removed, hunks });
const A_HUNK = hunk("@@ -1,3 +1,3 @@", [
  { kind: "context", text: "one", old: 1, new: 1 },
  { kind: "del", text: "two", old: 2 },
  { kind: "add", text: "TWO", new: 2 },
  { kind: "context", text: "three", old: 3, new: 3 },
]);
const comment = (id: string, end: number, side: "new" | "old" = "new"): ReviewComment => ({
  id,
  session: "S",
  target: "diff",
  path: "a.txt",
  start_line: end,
  end_line: end,
  side,
  quote: "",
  body: id,
  status: "draft",
  created_at: 1,
  updated_at: 1,
});

describe("the file tree", () => {
  it("puts folders first, adds up their counts, and folds a folder that holds only a folder", () => {
    const tree = fileTree([file("z.txt", 1, 0), file("src/app/b.ts", 2, 1), file("src/app/a.ts", 3, 0), file("docs/x.md", 0, 4)]);
    expect(tree.map((n) => [n.kind, n.name])).toEqual([
      ["folder", "docs"],
      ["folder", "src/app"],
      ["file", "z.txt"],
    ]);
    const src = tree[1];
    expect(src.kind === "folder" && [src.files, src.added, src.removed, src.path]).toEqual([2, 5, 1, "src/app"]);
    expect(treeOrder(tree).map((f) => f.path)).toEqual(["docs/x.md", "src/app/a.ts", "src/app/b.ts", "z.txt"]);
  });
});

describe("comments on a diff's lines", () => {
  it("show under their last line on their side; those on lines no hunk shows are apart", () => {
    const f = file("a.txt", 1, 1, [A_HUNK]);
    const { at, elsewhere } = placeComments(f, [comment("c1", 2), comment("c2", 2, "old"), comment("c3", 40)]);
    expect(at.get("new:2")?.map((c) => c.id)).toEqual(["c1"]);
    expect(at.get("old:2")?.map((c) => c.id)).toEqual(["c2"]);
    expect(elsewhere.map((c) => c.id)).toEqual(["c3"]);
  });

  it("a removed line has its old number only; the others their new one", () => {
    expect(hunkLines(A_HUNK).map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["ctx", 1, 1],
      ["del", 2, null],
      ["add", null, 2],
      ["ctx", 3, 3],
    ]);
  });

  it("Shift extends the lines picked in the same file and side; anything else starts anew", () => {
    const one = pickLine(null, "a.txt", "new", 5, true);
    expect(one).toEqual({ path: "a.txt", side: "new", start: 5, end: 5 });
    expect(pickLine(one, "a.txt", "new", 2, true)).toEqual({ path: "a.txt", side: "new", start: 2, end: 5 });
    expect(pickLine(one, "a.txt", "old", 8, true)).toEqual({ path: "a.txt", side: "old", start: 8, end: 8 });
    expect(pickLine(one, "b.txt", "new", 8, true).path).toBe("b.txt");
    expect(pickLine(one, "a.txt", "new", 9, false)).toEqual({ path: "a.txt", side: "new", start: 9, end: 9 });
  });
});

describe("Viewed", () => {
  it("is kept against a fingerprint that changes with the file's lines and not otherwise", () => {
    const a = file("a.txt", 1, 1, [A_HUNK]);
    expect(fileHash(a)).toBe(fileHash({ ...a, hunks: [hunk(A_HUNK.header, [...A_HUNK.lines])] }));
    const changed = hunk(A_HUNK.header, A_HUNK.lines.map((l) => (l.kind === "add" ? { ...l, text: "Two" } : l)));
    expect(fileHash(a)).not.toBe(fileHash({ ...a, hunks: [changed] }));
    expect(fileHash(a)).not.toBe(fileHash({ ...a, outside: [A_HUNK] }));
  });
});

describe("a review read again", () => {
  it("keeps the files that did not change as they were, so only the others are drawn again", () => {
    const a = file("a.txt", 1, 1, [A_HUNK]);
    const b = file("b.txt", 1, 1, [A_HUNK]);
    const prev = { base: "worktree" as const, files: [a, b], added: 2, removed: 2 };
    const bChanged = file("b.txt", 2, 1, [A_HUNK]);
    const next = keepUnchanged(prev, { ...prev, files: [file("a.txt", 1, 1, [A_HUNK]), bChanged] });
    expect(next.files[0]).toBe(a);
    expect(next.files[1]).toBe(bChanged);
    const staged = keepUnchanged(prev, { ...prev, files: [a, file("b.txt", 1, 1, [{ ...A_HUNK, staged: true }])] });
    expect(staged.files[1].hunks[0].staged).toBe(true);
    const same = { ...prev, files: [file("c.txt")] };
    expect(keepUnchanged(prev, same)).toBe(same);
  });
});
