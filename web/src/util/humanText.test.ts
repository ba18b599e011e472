import { describe, expect, it } from "vitest";
import { fieldsOf, humanResult, plainValue, withoutIds } from "./humanText";

const HEX = "ab".repeat(32);

describe("humanResult", () => {
  it("reads a JSON object as rows: real line breaks, no empty values, ids and offsets apart", () => {
    const r = humanResult(JSON.stringify({ id: "01J9ZK3W4X5Y6Z7A8B9C0D1E2F", status: "exited", text: "a\nb\n", label: "", next_offset: 4 }, null, 2));
    expect(r.fields).toEqual([
      { key: "status", value: "exited", multiline: false },
      { key: "text", value: "a\nb\n", multiline: true },
    ]);
    expect(r.internals.map((f) => f.key)).toEqual(["id", "next_offset"]);
  });

  it("sets the file tools' fingerprints apart from their words", () => {
    expect(humanResult(`edited a.txt; sha256: ${HEX}`)).toEqual({ fields: null, text: "edited a.txt", internals: [{ key: "sha256", value: HEX, multiline: false }] });
    const read = humanResult(`path: a.txt\nsha256: ${HEX}\nlines: 1, bytes: 2\n---\nx\n`);
    expect(read.text).toBe("path: a.txt\nlines: 1, bytes: 2\n---\nx\n");
    expect(read.internals).toHaveLength(1);
  });

  it("leaves other text as it is", () => {
    expect(humanResult("{not json")).toEqual({ fields: null, text: "{not json", internals: [] });
  });
});

describe("plainValue and fieldsOf", () => {
  it("writes nested values as indented lines, words as a list", () => {
    expect(plainValue(["a", "b"])).toBe("a, b");
    expect(plainValue([{ question: "Which?", options: ["x", "y"] }])).toBe("- question: Which?\n  options: x, y");
    expect(fieldsOf({ file: "hooks.json", sha256: HEX, commands: ["make"] })).toEqual({
      fields: [
        { key: "file", value: "hooks.json", multiline: false },
        { key: "commands", value: "make", multiline: false },
      ],
      internals: [{ key: "sha256", value: HEX, multiline: false }],
    });
  });
});

describe("withoutIds", () => {
  it("drops a task's id, bare or in brackets", () => {
    const id = "01TASKFIXTURE000000000000B";
    expect(withoutIds(`${id} \`watcher\`: exited, exit code 0`, [id])).toBe("`watcher`: exited, exit code 0");
    expect(withoutIds(`Background task tests (${id}) succeeded, exit code 0.`, [id])).toBe("Background task tests succeeded, exit code 0.");
  });
});
