import { describe, expect, it } from "vitest";
import { approvalHeadline, reasonText } from "./approvalText";

describe("approvalHeadline", () => {
  it("says one plain sentence per effect", () => {
    expect(approvalHeadline({ tool: "shell", effect: "process", input: { command: "ls -la" } })).toEqual({ text: "The agent wants to run a command", subject: "ls -la" });
    expect(approvalHeadline({ tool: "edit_file", effect: "write", input: { path: "/srv/a" }, scope: "directory" }).text).toBe("The agent wants to edit a file outside the workspace");
    expect(approvalHeadline({ tool: "edit_file", effect: "write", input: { path: "a" }, scope: "effect" }).text).toBe("The agent wants to edit a file");
    expect(approvalHeadline({ tool: "webfetch", effect: "external", input: { url: "https://x.test" } })).toEqual({ text: "The agent wants to reach the network", subject: "https://x.test" });
    expect(approvalHeadline({ tool: "read_file", effect: "read", input: { path: "/etc/x" }, reason: "`read_file` wants to access /etc/x, outside the workspace" }).text).toBe(
      "The agent wants to read a file outside the workspace",
    );
  });
});

describe("reasonText", () => {
  it("says why the effect rule asks, in words", () => {
    expect(reasonText("in `ask` mode, network access asks first")).toBe("In `ask` mode, network access asks first.");
    expect(reasonText("the server was started without --allow-write, so file edits always ask")).toBe(
      "The server was started without `--allow-write`, so file edits always ask.",
    );
    expect(reasonText("`shell` wants a external effect: mode `ask` asks for external effects")).toBe("In `ask` mode, network access asks first.");
    expect(reasonText("`write_file` wants a write effect: the server was started without --allow-write")).toBe(
      "The server was started without `--allow-write`, so file edits always ask.",
    );
    expect(reasonText("runs a process")).toBe("runs a process");
  });
});
