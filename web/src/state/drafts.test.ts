import { describe, expect, it } from "vitest";
import { type Draft, type DraftStore, Drafts, indexedDbStore, isEmptyDraft, memoryStore, parseDraft } from "./drafts";

const IMG = { name: "a.png", mediaType: "image/png" as const, bytes: 3, data: "AAAA" };

/** A store that records each call and holds each write until the test lets it through. */
function heldStore() {
  const calls: string[] = [];
  const kept = new Map<string, Draft>();
  const waiting: (() => void)[] = [];
  const hold = () => new Promise<void>((r) => waiting.push(r));
  const store: DraftStore = {
    get: async (id) => kept.get(id) ?? null,
    put: async (id, d) => {
      calls.push(`put ${id} ${d.text}`);
      await hold();
      kept.set(id, d);
    },
    delete: async (id) => {
      calls.push(`delete ${id}`);
      await hold();
      kept.delete(id);
    },
  };
  /** Let the oldest held write finish. */
  const release = async () => {
    waiting.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { store, calls, kept, release, held: () => waiting.length };
}

function failingStore(): DraftStore {
  const no = () => Promise.reject(new Error("QuotaExceededError"));
  return { get: no, put: no, delete: no };
}

describe("parseDraft", () => {
  it("reads a draft back, dropping what is not an image it can send", () => {
    const d = parseDraft({ text: "hi", images: [IMG, { ...IMG, mediaType: "image/svg+xml" }, { name: 1 }, null], extra: 1 });
    expect(d).toEqual({ text: "hi", images: [IMG] });
  });

  it("is null for what is not a draft, or an empty one", () => {
    expect(parseDraft(undefined)).toBeNull();
    expect(parseDraft("hi")).toBeNull();
    expect(parseDraft({ text: 3, images: [] })).toBeNull();
    expect(parseDraft({ text: "hi" })).toBeNull();
    expect(parseDraft({ text: "", images: [] })).toBeNull();
    expect(isEmptyDraft(null)).toBe(true);
    expect(isEmptyDraft({ text: "", images: [IMG] })).toBe(false);
  });
});

describe("Drafts", () => {
  it("keeps one draft per session; an empty one is deleted", async () => {
    const drafts = new Drafts(memoryStore());
    await drafts.save("s1", { text: "first", images: [IMG] });
    await drafts.save("s2", { text: "second", images: [] });
    expect(await drafts.load("s1")).toEqual({ text: "first", images: [IMG] });
    expect(await drafts.load("s2")).toEqual({ text: "second", images: [] });
    await drafts.clear("s1");
    expect(await drafts.load("s1")).toBeNull();
    await drafts.save("s2", { text: "", images: [] });
    expect(await drafts.load("s2")).toBeNull();
    expect(await drafts.load("never")).toBeNull();
  });

  it("writes one value at a time and then only the newest; load answers the newest meanwhile", async () => {
    const { store, calls, kept, release, held } = heldStore();
    const drafts = new Drafts(store);
    let firstDone = false;
    void drafts.save("s", { text: "a", images: [] }).then(() => (firstDone = true));
    let lastDone = false;
    const last = drafts.save("s", { text: "ab", images: [] });
    void drafts.save("s", { text: "abc", images: [] }).then(() => (lastDone = true));
    expect(calls).toEqual(["put s a"]);
    expect(await drafts.load("s")).toEqual({ text: "abc", images: [] });

    await release();
    // "ab" was never the newest when a write could start: skipped.
    expect(calls).toEqual(["put s a", "put s abc"]);
    expect(firstDone).toBe(false);
    expect(held()).toBe(1);
    await release();
    await last;
    expect(firstDone && lastDone).toBe(true);
    expect(kept.get("s")).toEqual({ text: "abc", images: [] });
    // Stored: read from the store now.
    expect(await drafts.load("s")).toEqual({ text: "abc", images: [] });
  });

  it("a save after the writes ended starts a new one; a clear deletes", async () => {
    const { store, calls, kept, release } = heldStore();
    const drafts = new Drafts(store);
    const one = drafts.save("s", { text: "a", images: [] });
    await release();
    await one;
    const two = drafts.clear("s");
    expect(calls).toEqual(["put s a", "delete s"]);
    expect(await drafts.load("s")).toBeNull();
    await release();
    await two;
    expect(kept.has("s")).toBe(false);
  });

  it("copies what it keeps: a later change of the caller's array changes nothing", async () => {
    const drafts = new Drafts(failingStore());
    const images = [{ ...IMG }];
    await drafts.save("s", { text: "x", images });
    images[0].name = "changed.png";
    images.push(IMG);
    expect((await drafts.load("s"))?.images).toEqual([IMG]);
  });

  it("falls back to memory when the store fails: drafts still move between sessions", async () => {
    const drafts = new Drafts(failingStore());
    expect(await drafts.load("s")).toBeNull();
    await drafts.save("s", { text: "kept in memory", images: [IMG] });
    await drafts.save("t", { text: "other", images: [] });
    expect(await drafts.load("s")).toEqual({ text: "kept in memory", images: [IMG] });
    expect(await drafts.load("t")).toEqual({ text: "other", images: [] });
    await drafts.clear("s");
    expect(await drafts.load("s")).toBeNull();
  });

  it("falls back to memory when a write fails after reads worked", async () => {
    const kept = new Map<string, Draft>([["old", { text: "from before", images: [] }]]);
    const store: DraftStore = {
      get: async (id) => kept.get(id) ?? null,
      put: () => Promise.reject(new Error("full")),
      delete: async () => undefined,
    };
    const drafts = new Drafts(store);
    expect(await drafts.load("old")).toEqual({ text: "from before", images: [] });
    await drafts.save("s", { text: "new", images: [] });
    expect(await drafts.load("s")).toEqual({ text: "new", images: [] });
  });

  it("falls back to memory when IndexedDB cannot be opened", async () => {
    const refusing = { open: () => { throw new Error("SecurityError"); } } as unknown as IDBFactory;
    const drafts = new Drafts(indexedDbStore(refusing));
    expect(await drafts.load("s")).toBeNull();
    await drafts.save("s", { text: "still here", images: [] });
    expect(await drafts.load("s")).toEqual({ text: "still here", images: [] });
  });
});
