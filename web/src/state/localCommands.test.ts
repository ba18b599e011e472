// What the local commands read from the server: `/model NAME` checks the provider's list, `/new`
// and `/clear` make a session like this one (the server faked at the client's boundary).
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Session } from "../api/types";

const fake = vi.hoisted(() => ({
  models: vi.fn(),
  createSession: vi.fn(),
  patchSession: vi.fn(),
  navigate: vi.fn(),
  upsertSession: vi.fn(),
}));

vi.mock("../api/client", async (real) => ({
  ...(await real<typeof import("../api/client")>()),
  api: { models: fake.models, createSession: fake.createSession, patchSession: fake.patchSession },
}));
vi.mock("./router", () => ({ navigate: fake.navigate, sessionPath: (id: string) => `/s/${id}` }));
vi.mock("./sessions", () => ({ upsertSession: fake.upsertSession }));

import { ApiError } from "../api/client";
import { checkModel, startLike } from "./localCommands";

const SESSION: Session = {
  id: "S1",
  title: "t",
  workspace: "/w",
  agent: "reviewer",
  mode: "auto",
  archived: false,
  status: "idle",
  last_seq: 0,
  created_at: 1,
  updated_at: 1,
};

beforeEach(() => vi.clearAllMocks());

describe("checking a model against the provider's list", () => {
  const listing = (...ids: string[]) => fake.models.mockResolvedValueOnce({ data: ids.map((id) => ({ id })) });

  it("passes a listed model, and NAME for Ollama's NAME:latest", async () => {
    listing("tiny-a", "tiny-b");
    await expect(checkModel("local", "tiny-b")).resolves.toBeNull();
    expect(fake.models).toHaveBeenCalledWith("local");
    listing("llama3:latest");
    await expect(checkModel("ollama", "llama3")).resolves.toBeNull();
  });

  it("refuses a model the provider does not list, naming those it does", async () => {
    listing("tiny-a", "tiny-b");
    await expect(checkModel("local", "big")).rejects.toThrow("local has no model big (it lists tiny-a, tiny-b). The model was not changed.");
    listing(...Array.from({ length: 10 }, (_, i) => `m${i}`));
    await expect(checkModel("local", "big")).rejects.toThrow("(it lists m0, m1, m2, m3, m4, m5, m6, m7 and 2 more)");
  });

  it("only warns when the list cannot be read or is empty", async () => {
    fake.models.mockRejectedValueOnce(new ApiError(502, "upstream", "this key is not allowed here"));
    await expect(checkModel("locked", "x")).resolves.toBe("locked's model list could not be read (this key is not allowed here), so x was not checked");
    listing();
    await expect(checkModel(null, "x")).resolves.toBe("the provider lists no models, so x was not checked");
    expect(fake.models).toHaveBeenLastCalledWith(undefined);
  });
});

describe("a new session like this one", () => {
  it("keeps the workspace, agent and mode, then the provider, model and reasoning effort, and opens it", async () => {
    fake.createSession.mockResolvedValueOnce({ ...SESSION, id: "S2" });
    fake.patchSession.mockResolvedValueOnce({ ...SESSION, id: "S2", provider: "local", model: "tiny-b", reasoning_effort: "low" });
    await startLike({ ...SESSION, provider: "local", model: "tiny-b", reasoning_effort: "low" });
    expect(fake.createSession).toHaveBeenCalledWith({ workspace: "/w", agent: "reviewer", mode: "auto" });
    expect(fake.patchSession).toHaveBeenCalledWith("S2", { provider: "local", model: "tiny-b", reasoning_effort: "low" });
    expect(fake.navigate).toHaveBeenCalledWith("/s/S2");
  });

  it("follows the default like this one when it has no model of its own", async () => {
    fake.createSession.mockResolvedValueOnce({ ...SESSION, id: "S3" });
    await startLike({ ...SESSION, provider: null, model: null });
    expect(fake.patchSession).not.toHaveBeenCalled();
    expect(fake.navigate).toHaveBeenCalledWith("/s/S3");
  });

  it("stays here and says why when the model cannot be set on the new one", async () => {
    fake.createSession.mockResolvedValueOnce({ ...SESSION, id: "S4" });
    fake.patchSession.mockRejectedValueOnce(new ApiError(422, "invalid", "no provider gone"));
    await expect(startLike({ ...SESSION, provider: "gone", model: "m" })).rejects.toThrow(/A new session was started \(it is in the list\), but not on this session's model: no provider gone/);
    expect(fake.navigate).not.toHaveBeenCalled();
    expect(fake.upsertSession).toHaveBeenCalledWith({ ...SESSION, id: "S4" });
  });
});
