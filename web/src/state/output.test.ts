// A running command's live output: chunks in arrival order, joined per stream, bounded.
import { describe, expect, it } from "vitest";
import { appendOutput, emptyOutput, outputText } from "./output";

describe("live output", () => {
  it("keeps stdout and stderr interleaved in the order they came, joining consecutive text of a stream", () => {
    const o = emptyOutput();
    appendOutput(o, "stdout", "a\n");
    appendOutput(o, "stdout", "b\n");
    appendOutput(o, "stderr", "oops\n");
    appendOutput(o, "stdout", "c\n");
    appendOutput(o, "stdout", "");
    expect(o.chunks.map((c) => [c.id, c.stream, c.text])).toEqual([
      [0, "stdout", "a\nb\n"],
      [1, "stderr", "oops\n"],
      [2, "stdout", "c\n"],
    ]);
    expect([o.size, o.cut]).toEqual([11, false]);
  });

  it("replaces a chunk it adds to (a view keyed by chunk redraws that one only)", () => {
    const o = emptyOutput();
    appendOutput(o, "stdout", "a");
    const first = o.chunks[0];
    appendOutput(o, "stdout", "b");
    expect(o.chunks[0]).not.toBe(first);
    expect(first.text).toBe("a");
  });

  it("starts a new chunk past its size, unless an escape sequence is cut off at its end", () => {
    const o = emptyOutput();
    appendOutput(o, "stdout", "x".repeat(9000));
    appendOutput(o, "stdout", "y");
    expect(o.chunks.map((c) => c.text.length)).toEqual([9000, 1]);
    appendOutput(o, "stdout", "z".repeat(9000) + "\x1b[3");
    appendOutput(o, "stdout", "1mred");
    expect(o.chunks.at(-1)?.text.endsWith("\x1b[31mred")).toBe(true);
  });

  it("drops the oldest text past the bound, at a line's start when one is near", () => {
    const o = emptyOutput();
    appendOutput(o, "stdout", "line one\nline two\n", 20);
    appendOutput(o, "stderr", "err\n", 20);
    expect(o.cut).toBe(true);
    expect(outputText(o)).toBe("line two\nerr\n");
    expect(o.size).toBe(outputText(o).length);
    appendOutput(o, "stdout", "0123456789012345678901234", 20);
    expect(o.chunks.map((c) => c.stream)).toEqual(["stdout"]);
    expect(outputText(o)).toBe("56789012345678901234");
    expect(o.size).toBe(20);
  });
});
