import { describe, expect, it } from "vitest";
import { arrowKey, fenced, screenText, withCtrl } from "./terminalKeys";

describe("terminal keys", () => {
  it("turns a key typed with the sticky Ctrl into its control code", () => {
    expect(withCtrl("c")).toBe("\x03");
    expect(withCtrl("C")).toBe("\x03");
    expect(withCtrl("[")).toBe("\x1b");
    expect(withCtrl(" ")).toBe("\x00");
    expect(withCtrl("ab")).toBe("ab");
    expect(withCtrl("é")).toBe("é");
  });

  it("sends the arrows a program asked for", () => {
    expect(arrowKey("up")).toBe("\x1b[A");
    expect(arrowKey("left", { app: true })).toBe("\x1bOD");
    expect(arrowKey("right", { ctrl: true })).toBe("\x1b[1;5C");
  });
});

describe("sharing a screen", () => {
  it("drops trailing spaces and the blank lines around the text", () => {
    expect(screenText(["", "$ echo hi   ", "hi", "$ ", "", ""])).toBe("$ echo hi\nhi\n$");
    expect(screenText(["", "  "])).toBe("");
  });

  it("fences the text with more backticks than it holds", () => {
    expect(fenced("ls")).toBe("```console\nls\n```");
    expect(fenced("a ```` b")).toBe("`````console\na ```` b\n`````");
  });
});
