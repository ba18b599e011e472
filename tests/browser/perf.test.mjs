// Benchmarks (figures are printed; the bounds are generous regression guards):
// - time to first render of a session with 5,000+ events;
// - main-thread time while a 5,000-delta reply streams.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCall, haveServer, launchBrowser, newPage, signInWithToken, startServer } from "./harness.mjs";

const CALLS = 1700; // tool_call + policy_decision + tool_result each → 5,100+ events
const DELTAS = 5000;

const scripts = [
  {
    match: "many tools",
    turns: [
      {
        text: "Listing many times.",
        tool_calls: Array.from({ length: CALLS }, () => ({ name: "list_files", arguments: {} })),
      },
      { text: "All listed." },
    ],
  },
  {
    match: "long stream",
    turns: [{ text: Array.from({ length: DELTAS }, (_, i) => `t${i % 10}`).join(""), chunk_chars: 2, delay_ms: 1 }],
  },
];

const skip = haveServer() ? false : "server binary not built";

describe("performance", { skip, timeout: 900_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({ scripts, args: ["--allow-write"] });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function waitIdle(page, id) {
    for (let i = 0; i < 600; i++) {
      const s = await apiCall(page, null, "GET", `/api/sessions/${id}`);
      if (s.json?.status === "idle" && s.json.last_seq > 2) return s.json;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error("run did not finish");
  }

  test("first render of a 5,000-event session", async () => {
    const p = await newPage(browser, server, { storageState: state });
    await p.page.goto(server.base + "/");
    const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "perf", mode: "full" });
    const id = created.json.id;
    await apiCall(p.page, server, "POST", `/api/sessions/${id}/messages`, { text: "many tools please" });
    const s = await waitIdle(p.page, id);
    const t0 = Date.now();
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator(".run-end").first().waitFor({ timeout: 60_000 });
    const ms = Date.now() - t0;
    console.log(`first render of ${s.last_seq} events: ${ms} ms (navigation included)`);
    assert.ok(s.last_seq >= 5000, `only ${s.last_seq} events`);
    assert.ok(ms < 15_000);
    await p.context.close();
  });

  test("main-thread time while a 5,000-delta reply streams", async () => {
    const p = await newPage(browser, server, { storageState: state });
    await p.page.goto(server.base + "/");
    const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "stream", mode: "full" });
    const id = created.json.id;
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator(".conn[data-state=open]").waitFor();
    const cdp = await p.context.newCDPSession(p.page);
    await cdp.send("Performance.enable");
    const metrics = async () =>
      Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    const m0 = await metrics();
    const t0 = Date.now();
    await apiCall(p.page, server, "POST", `/api/sessions/${id}/messages`, { text: "a long stream" });
    await p.page.locator(".run-end").first().waitFor({ timeout: 120_000 });
    const m1 = await metrics();
    const wall = Date.now() - t0;
    const events = (await apiCall(p.page, server, "GET", `/api/sessions/${id}`)).json.last_seq;
    const task = (m1.TaskDuration - m0.TaskDuration) * 1000;
    const script = (m1.ScriptDuration - m0.ScriptDuration) * 1000;
    console.log(
      `streamed ${DELTAS} provider deltas (${events} stored events) in ${wall} ms: main thread ${task.toFixed(0)} ms ` +
        `(${(task / DELTAS).toFixed(3)} ms per delta, ${(task / events).toFixed(2)} ms per event), script ${script.toFixed(0)} ms`,
    );
    assert.ok(task < wall, "main thread was not saturated");
    await p.context.close();
  });
});
