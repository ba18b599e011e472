// A session's line comments as the transcript keeps them: in the order written, the newest copy
// of each, and the answers plan revisions gave.
import { describe, expect, it } from "vitest";
import type { ReviewComment } from "../api/types";
import { drafts, dropComment, planAnswers, putComment, statusLabel } from "./comments";

const c = (id: string, over: Partial<ReviewComment> = {}): ReviewComment => ({
  id,
  session: "S",
  target: "diff",
  path: "a.txt",
  start_line: 1,
  end_line: 1,
  side: "new",
  quote: "",
  body: id,
  status: "draft",
  created_at: 10,
  updated_at: 10,
  ...over,
});

describe("the comments list", () => {
  it("keeps the order they were written in and the newest copy of each", () => {
    let list = putComment([], c("B", { created_at: 20 })) ?? [];
    list = putComment(list, c("A", { created_at: 10 })) ?? [];
    expect(list.map((x) => x.id)).toEqual(["A", "B"]);
    const sent = putComment(list, c("A", { status: "sent", updated_at: 30 })) ?? [];
    expect(sent[0].status).toBe("sent");
    // An older copy (a REST list read before the change) changes nothing.
    expect(putComment(sent, c("A", { updated_at: 10 }))).toBeNull();
    expect(dropComment(sent, "A")?.map((x) => x.id)).toEqual(["B"]);
    expect(dropComment(sent, "Z")).toBeNull();
  });

  it("counts the drafts of a target (and of one plan revision)", () => {
    const list = [c("A"), c("B", { status: "sent" }), c("P", { target: "plan", plan_id: "PL1" }), c("Q", { target: "plan", plan_id: "PL2" })];
    expect(drafts(list, "diff").map((x) => x.id)).toEqual(["A"]);
    expect(drafts(list, "plan", "PL1").map((x) => x.id)).toEqual(["P"]);
  });

  it("reads each revision's answers by comment, and says why a comment resolved", () => {
    const got = planAnswers([{ revision: 1 }, { revision: 2, answers: [{ comment: "P", text: "Split it" }] }]);
    expect(got.get("P")).toEqual({ text: "Split it", revision: 2 });
    expect(statusLabel(c("A", { status: "resolved", resolved_by: "lines_changed" }))).toBe("resolved: lines changed");
  });
});
