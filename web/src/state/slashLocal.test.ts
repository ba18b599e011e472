// The commands answered in the composer: how `/help`, `/clear`, `/cost`, `/status`, `/diff`,
// `/export …` and `/model NAME` are read, and what each comes to (the server faked at the module
// boundary: what the commands read is tested in localCommands.test.ts and util/).
import { beforeEach, describe, expect, it, vi } from "vitest";

// slash.ts reaches the router, which reads the page's address when loaded: a bare one here.
vi.hoisted(() => {
  Object.assign(globalThis, { location: { pathname: "/", search: "" }, window: { addEventListener: () => undefined } });
});

const fake = vi.hoisted(() => ({
  exportSession: vi.fn(async (_id: string, format: string) => `s.${format === "json" ? "json" : "md"}`),
  startLike: vi.fn(async () => ({ id: "S2" })),
  checkModel: vi.fn(async (): Promise<string | null> => null),
  costPanel: vi.fn(async () => ({ kind: "facts", title: "Cost of this session", groups: [] })),
  statusPanel: vi.fn(async () => ({ kind: "facts", title: "Status", groups: [] })),
  navigate: vi.fn(),
  patchSession: vi.fn(async (id: string, p: object) => ({ ...SESSION_BASE, id, ...p })),
  providers: vi.fn(async () => ({ default: "default", data: [{ id: "default", model: "replay" }, { id: "local", model: "tiny-a" }] })),
}));
const SESSION_BASE = vi.hoisted(() => ({
  id: "S1",
  title: "t",
  workspace: "/w",
  agent: "build",
  mode: "ask",
  archived: false,
  status: "idle",
  last_seq: 0,
  created_at: 1,
  updated_at: 1,
}));

vi.mock("./export", () => ({ exportSession: fake.exportSession }));
vi.mock("./localCommands", () => ({
  startLike: fake.startLike,
  checkModel: fake.checkModel,
  costPanel: fake.costPanel,
  statusPanel: fake.statusPanel,
}));
vi.mock("./router", async (real) => ({ ...(await real<typeof import("./router")>()), navigate: fake.navigate }));
vi.mock("../api/client", async (real) => ({
  ...(await real<typeof import("../api/client")>()),
  api: { patchSession: fake.patchSession, providers: fake.providers },
}));

import type { PromptCommand, Session } from "../api/types";
import { resolveSlash, slashEntries, slashQuery } from "./slash";

const SESSION = SESSION_BASE as Session;
const TEMPLATES: PromptCommand[] = [{ name: "review", description: "Review the diff", template: "Review $ARGUMENTS", takes_arguments: true }];
const ctx = { undoTarget: () => null, templates: async () => TEMPLATES };
const run = (text: string) => resolveSlash(SESSION, text, ctx);

beforeEach(() => vi.clearAllMocks());

describe("the picker's local commands", () => {
  const labels = (q: string) => slashEntries(q, []).map((e) => e.label);

  it("offers each with a description, none taking arguments", () => {
    for (const name of ["help", "clear", "cost", "status", "diff", "export json", "export markdown"]) {
      const e = slashEntries(name, []).find((x) => x.label === name);
      expect(e, name).toBeDefined();
      expect(e?.description.length).toBeGreaterThan(20);
      expect(e?.takesArguments).toBe(false);
    }
    expect(labels("")[0]).toBe("help");
  });

  it("lists both exports once /export is typed, and each after the space", () => {
    expect(labels("export")).toEqual(["export json", "export markdown"]);
    expect(slashQuery("/export m")).toBe("export m");
    expect(labels("export m")).toEqual(["export markdown"]);
  });

  it("says that /new keeps the model", () => {
    expect(slashEntries("new", [])[0].description).toMatch(/model/);
  });
});

describe("reading the local commands", () => {
  it("/help lists the built-in commands and the workspace's templates, nothing sent", async () => {
    const out = await run("/help");
    expect(out.send).toBeNull();
    expect(out.panel?.kind).toBe("facts");
    if (out.panel?.kind !== "facts") return;
    const [builtins, templates] = out.panel.groups;
    expect(builtins.facts.map((f) => f.name)).toContain("/diff");
    expect(builtins.facts.map((f) => f.name)).toContain("/export markdown");
    expect(templates.facts).toEqual([{ name: "/review", value: "Review the diff (workspace)" }]);
  });

  it("/diff opens the session's review, nothing sent", async () => {
    const out = await run("/diff");
    expect(fake.navigate).toHaveBeenCalledWith("/s/S1/review");
    expect([out.done, out.send, out.panel]).toEqual([null, null, undefined]);
  });

  it("/cost and /status show their panels, nothing sent", async () => {
    for (const [text, fn, title] of [
      ["/cost", fake.costPanel, "Cost of this session"],
      ["/status", fake.statusPanel, "Status"],
    ] as const) {
      const out = await run(text);
      expect(fn).toHaveBeenCalledWith(SESSION);
      expect([out.done, out.send, out.panel?.title]).toEqual([null, null, title]);
    }
  });

  it("/clear and /new start a session like this one", async () => {
    expect((await run("/clear")).done).toMatch(/^Cleared: a new session/);
    expect((await run("/new")).done).toBe("New session started.");
    expect(fake.startLike).toHaveBeenCalledTimes(2);
    expect(fake.startLike).toHaveBeenCalledWith(SESSION);
  });

  it("refuses words after a command that takes none", async () => {
    await expect(run("/help me")).rejects.toThrow("/help takes nothing after it.");
    await expect(run("/clear all")).rejects.toThrow("/clear takes nothing after it.");
    expect(fake.startLike).not.toHaveBeenCalled();
  });

  it("/export is JSON, /export md and /export markdown are Markdown, any other format is refused", async () => {
    expect((await run("/export")).done).toBe("Downloaded s.json.");
    expect((await run("/export JSON")).done).toBe("Downloaded s.json.");
    expect((await run("/export md")).done).toBe("Downloaded s.md.");
    expect((await run("/export markdown")).done).toBe("Downloaded s.md.");
    expect(fake.exportSession.mock.calls.map((c) => c[1])).toEqual(["json", "json", "markdown", "markdown"]);
    await expect(run("/export pdf")).rejects.toThrow("Use /export json or /export markdown.");
  });

  it("/model NAME sets a model the provider lists, on the session's provider", async () => {
    const out = await run("/model local/tiny-b");
    expect(fake.checkModel).toHaveBeenCalledWith("local", "tiny-b");
    expect(fake.patchSession).toHaveBeenCalledWith("S1", { provider: "local", model: "tiny-b" });
    expect(out.done).toBe("Model: local/tiny-b");
  });

  it("/model NAME refuses a model the provider lacks: nothing is changed", async () => {
    fake.checkModel.mockRejectedValueOnce(new Error("default has no model nope (it lists replay). The model was not changed."));
    await expect(run("/model nope")).rejects.toThrow("default has no model nope");
    expect(fake.checkModel).toHaveBeenCalledWith("default", "nope");
    expect(fake.patchSession).not.toHaveBeenCalled();
  });

  it("/model NAME sets the model with a warning when the provider's list cannot be read", async () => {
    fake.checkModel.mockResolvedValueOnce("local's model list could not be read (401), so big was not checked");
    const out = await run("/model local/big");
    expect(fake.patchSession).toHaveBeenCalledWith("S1", { provider: "local", model: "big" });
    expect(out.done).toBe("Model: local/big. Warning: local's model list could not be read (401), so big was not checked.");
  });
});
