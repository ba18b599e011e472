// Browser tests of the web app's third pass (issue 14): the session list follows the WebSocket,
// interrupted runs say why and offer Resume, the queue behind a run is visible and editable and
// Cancel asks about it, edit and resend forks the session, plan render errors reach the server,
// Esc stops a streaming turn, and events' origin / fatal are read as sent.
// Every test opens its own session; waits are on DOM state, requests or events, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  afterPaint,
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  injectFrames,
  launchBrowser,
  newPage,
  openFixtureSession,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";

/** About 40 s of streaming: long enough to stay active for every step, ended by Cancel or Esc. */
const SLOW = Array.from({ length: 400 }, (_, i) => `slow${i}`).join(" ");

const scripts = [
  { match: "slow reply", turns: [{ text: SLOW, chunk_chars: 4, delay_ms: 100 }] },
  {
    match: "write a file",
    turns: [
      { text: "Writing it.", tool_calls: [{ name: "write_file", arguments: { path: "out.txt", content: "hi\n" } }] },
      { text: "Written." },
    ],
  },
  { match: "fail with a bad key", turns: [{ error: { status: 401, message: "invalid api key sk-test" } }] },
  { turns: [{ text: "Hello from replay" }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const usage = (i, o) => ({ input_tokens: i, output_tokens: o });

describe("third pass", { skip, timeout: 600_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({ scripts });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(opts = {}) {
    const p = await newPage(browser, server, { storageState: state, ...opts });
    p.page.setDefaultTimeout(8000);
    return p;
  }


  const fixtureSession = (p, title) => openFixtureSession(p, server, title);

  async function events(p, id) {
    const r = await apiCall(p.page, server, "GET", `/api/sessions/${id}/events?after=0&limit=5000`);
    assert.equal(r.status, 200);
    return r.json.data;
  }

  const listRequests = (p) => p.log.requests.filter((u) => /\/api\/sessions\?/.test(u)).length;

  test("session list follows the WebSocket: new sessions, status badges, auto-titles and deletes arrive without a poll; a reconnect reads the list again", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });
    await p.page.locator(".session-list .sessions").waitFor({ state: "attached" });
    const before = listRequests(p);
    assert.ok(before >= 1, "the list was read at start");

    // A session made elsewhere (another tab, a script) appears by itself, with its default title.
    const created = await apiCall(p.page, server, "POST", "/api/sessions", {});
    assert.equal(created.status, 201);
    const id = created.json.id;
    const item = p.page.locator(`.session-list [data-session-id="${id}"]`);
    await item.waitFor({ timeout: 3000 }).catch(() => {
      throw new Error("a new session did not appear in the list from session_updated");
    });
    assert.equal(await item.locator(".session-title").innerText(), "New session");

    // Its first prompt: the badge says running at once, the auto-title replaces "New session".
    const sent = await apiCall(p.page, server, "POST", `/api/sessions/${id}/messages`, { text: "slow reply about the parser" });
    assert.equal(sent.status, 202, JSON.stringify(sent.json));
    await item.locator(".badge-running").waitFor({ timeout: 3000 }).catch(() => {
      throw new Error("the running badge did not follow the run's start");
    });
    await item.locator(".session-title").getByText("slow reply about the parser").waitFor({ timeout: 3000 }).catch(async () => {
      throw new Error(`the auto-title did not arrive: ${await item.innerText()}`);
    });
    const cancel = await apiCall(p.page, server, "POST", `/api/runs/${sent.json.run_id}/cancel`, {});
    assert.equal(cancel.status, 200, JSON.stringify(cancel.json));
    await item.locator(".badge-running").waitFor({ state: "detached", timeout: 3000 }).catch(() => {
      throw new Error("the running badge stayed after the run ended");
    });
    await shot(p.page, "50-live-list");

    // Deleted elsewhere: it goes.
    const del = await apiCall(p.page, server, "DELETE", `/api/sessions/${id}`, {});
    assert.equal(del.status, 204);
    await item.waitFor({ state: "detached", timeout: 3000 }).catch(() => {
      throw new Error("a deleted session stayed in the list");
    });
    assert.equal(listRequests(p), before, "no list request between (the WebSocket carried every change)");

    // A dropped socket: reopened, the app subscribes again and reads the list once more.
    const resubscribed = p.page.waitForEvent("websocket", { timeout: 15_000 });
    const reread = p.page.waitForRequest((r) => /\/api\/sessions\?limit=200&archived=true/.test(r.url()), { timeout: 15_000 });
    await p.page.evaluate(() => window.__sockets.at(-1).close());
    const ws = await resubscribed;
    const frame = await ws.waitForEvent("framesent", { predicate: (f) => String(f.payload).includes("subscribe_sessions"), timeout: 10_000 });
    assert.match(String(frame.payload), /"type":"subscribe_sessions"/);
    await reread;
    // Still live after the reconnect.
    const second = await apiCall(p.page, server, "POST", "/api/sessions", { title: "After reconnect" });
    await p.page.locator(`.session-list [data-session-id="${second.json.id}"]`).waitFor({ timeout: 3000 });
    assertClean(p);
    await p.context.close();
  });

  test("an interrupted run says why (shutdown / crash), never 'cancelled', shows usage and duration as sent; its waiting tool card stops waiting; Resume on the latest run only", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Interrupted");
    const run1 = "01RUNFIXTURESHUTDOWN00000A";
    inj.send({ type: "run_started", run: run1, run_id: run1, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "user_message", run: run1, message_id: "01MSGSHUT", text: "write it", origin: "prompt" });
    inj.send({ type: "tool_call", run: run1, call_id: "w1", tool: "write_file", effect: "write", input: { path: "a.txt", content: "x" } });
    inj.send({ type: "policy_decision", run: run1, call_id: "w1", tool: "write_file", effect: "write", decision: "ask", reason: "mode ask", key: "write" });
    inj.send({
      type: "approval_requested", run: run1, approval_id: "01APPROVALSHUT", call_id: "w1", tool: "write_file", effect: "write",
      input: { path: "a.txt", content: "x" }, scope: "effect", reason: "mode ask", reasons: ["mode ask"], warnings: [],
    });
    const status = p.page.locator('.tool-card[data-call-id="w1"] .tool-status');
    await status.getByText("waiting for approval").waitFor();
    inj.send({ type: "run_finished", run: run1, run_id: run1, status: "interrupted", reason: "shutdown", error: null, usage: usage(1234, 56), duration_ms: 4200 });
    const end1 = p.page.locator(`.run-end[data-run-id="${run1}"]`);
    await end1.getByText("Interrupted — the server was stopped").waitFor();
    await end1.getByText("4.2 s").waitFor({ timeout: 1000 });
    await end1.getByText("1.2k in · 56 out").waitFor({ timeout: 1000 });
    assert.notEqual(await status.innerText(), "waiting for approval", "the tool card still waits after its run ended");
    assert.doesNotMatch(await p.page.locator(".transcript").innerText(), /cancelled/i);
    await end1.getByRole("button", { name: "Resume" }).waitFor({ timeout: 1000 });
    await shot(p.page, "51-interrupted");

    const run2 = "01RUNFIXTURECRASH000000000";
    inj.send({ type: "run_started", run: run2, run_id: run2, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "user_message", run: run2, message_id: "01MSGCRASH", text: "again", origin: "prompt" });
    inj.send({ type: "run_finished", run: run2, run_id: run2, status: "interrupted", reason: "crash", error: null, usage: usage(10, 2), duration_ms: 800 });
    const end2 = p.page.locator(`.run-end[data-run-id="${run2}"]`);
    await end2.getByText("Interrupted — the server stopped unexpectedly").waitFor();
    await end2.getByText("800 ms").waitFor({ timeout: 1000 });
    await end2.getByRole("button", { name: "Resume" }).waitFor({ timeout: 1000 });
    assert.equal(await p.page.getByRole("button", { name: "Resume", exact: true }).count(), 1, "Resume on the latest run only");
    assertClean(p);
    await p.context.close();
  });

  test("Retry on a failed run resumes it (POST /api/runs/{id}/resume) instead of sending the prompt again", { timeout: 40_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Retry resumes" });
    await sendPrompt(p.page, "fail with a bad key");
    const end = p.page.locator('.run-end[data-status="failed"]').first();
    await end.waitFor({ timeout: 15_000 });
    const runId = await end.getAttribute("data-run-id");
    const resumed = p.page.waitForResponse((r) => r.url().endsWith(`/api/runs/${runId}/resume`) && r.request().method() === "POST");
    await end.getByRole("button", { name: "Retry" }).click();
    assert.equal((await resumed).status(), 202);
    await p.page.locator('.run-end[data-status="failed"]').nth(1).waitFor({ timeout: 15_000 });
    await p.page.locator('.system-note[data-internal="resume"]').waitFor();
    assert.equal(await p.page.locator(".msg-user").count(), 1, "the prompt is not sent again");
    const users = (await events(p, id)).filter((e) => e.type === "user_message");
    assert.deepEqual(users.map((e) => e.origin), ["prompt", "resume"]);
    assert.equal(await p.page.getByRole("button", { name: "Retry", exact: true }).count(), 1, "Retry only on the latest run");
    assertClean(p);
    await p.context.close();
  });

  test("the queue under the transcript: edit and remove queued messages; Cancel asks whether to drop the queue (accessible dialog)", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Queue" });
    await sendPrompt(p.page, "slow reply for the queue");
    await p.page.locator(".msg-assistant").waitFor({ timeout: 10_000 });
    await sendPrompt(p.page, "queued one");
    await sendPrompt(p.page, "queued two");
    const panel = p.page.getByRole("region", { name: /Queued/ });
    const rows = panel.locator(".queue-item");
    await rows.nth(1).waitFor({ timeout: 5000 }).catch(async () => {
      throw new Error(`the queue does not show both messages: ${await p.page.locator(".session-view").innerText()}`);
    });
    assert.equal(await rows.nth(0).locator(".queue-text").innerText(), "queued one");
    assert.equal(await rows.nth(1).locator(".queue-text").innerText(), "queued two");

    // Edit the first.
    await panel.getByRole("button", { name: "Edit queued message 1" }).click();
    const box = panel.getByRole("textbox", { name: "Queued message" });
    await box.fill("queued one, edited");
    await panel.getByRole("button", { name: "Save" }).click();
    await rows.nth(0).locator(".queue-text").getByText("queued one, edited").waitFor();
    const q = await apiCall(p.page, server, "GET", `/api/sessions/${id}/queue`);
    assert.deepEqual(q.json.data.map((x) => x.text), ["queued one, edited", "queued two"]);

    // Remove the second.
    await panel.getByRole("button", { name: "Remove queued message 2" }).click();
    await rows.nth(1).waitFor({ state: "detached" });
    assert.equal(await rows.count(), 1);
    await shot(p.page, "52-queue");

    // Cancel asks; Esc on the dialog cancels nothing.
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    const dialog = p.page.getByRole("dialog", { name: "Cancel the run?" });
    await dialog.waitFor();
    await dialog.getByText("1 queued message is waiting").waitFor({ timeout: 1000 });
    await shot(p.page, "53-cancel-dialog");
    await p.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    assert.equal(p.log.requests.filter((u) => /\/cancel$/.test(u)).length, 0, "Esc on the dialog cancels nothing");
    assert.equal(await p.page.locator(".run-end").count(), 0, "a removed queued message leaves no run end behind");
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    await dialog.getByRole("button", { name: "Cancel and drop the queue" }).click();
    await p.page.locator('.run-end[data-status="cancelled"]').first().waitFor({ timeout: 10_000 });
    await panel.waitFor({ state: "detached", timeout: 5000 }).catch(() => {
      throw new Error("the queue panel stayed after the queue was dropped");
    });
    const runs = await apiCall(p.page, server, "GET", `/api/sessions/${id}/runs`);
    assert.equal(runs.status, 200);
    assert.ok(runs.json.data.every((r) => r.status !== "queued" && r.status !== "running"), JSON.stringify(runs.json.data));
    const texts = (await events(p, id)).filter((e) => e.type === "user_message").map((e) => e.text);
    assert.deepEqual(texts, ["slow reply for the queue"], "the dropped message never ran");
    // Stopped by the user reads the same however it was stopped, and after a reload.
    assert.equal(await p.page.locator(".transcript .run-end .run-status").getByText("Stopped — press Resume to continue").count() >= 1, true);
    assertClean(p);
    await p.context.close();
  });

  test("Cancel keeping the queue: the queued message runs after the stop", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Queue kept" });
    await sendPrompt(p.page, "slow reply, then the queue");
    await p.page.locator(".msg-assistant").waitFor({ timeout: 10_000 });
    await sendPrompt(p.page, "kept message");
    await p.page.locator(".queue-item").waitFor({ timeout: 5000 });
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    await p.page.getByRole("dialog", { name: "Cancel the run?" }).getByRole("button", { name: "Cancel, keep the queue" }).click();
    await p.page.locator(".msg-user").getByText("kept message").waitFor({ timeout: 10_000 });
    await p.page.locator('.run-end[data-status="completed"]').waitFor({ timeout: 10_000 });
    await p.page.locator(".queue-panel").waitFor({ state: "detached", timeout: 5000 });
    assertClean(p);
    await p.context.close();
  });

  test("edit and resend forks the session at that message; the fork links back ('Forked from … at message N')", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const original = await createSessionViaUi(p.page, { title: "Fork source" });
    await sendPrompt(p.page, "first question");
    await p.page.locator(".run-end").first().waitFor({ timeout: 10_000 });
    await sendPrompt(p.page, "second question");
    await p.page.locator(".run-end").nth(1).waitFor({ timeout: 10_000 });
    const seq = Number(await p.page.locator(".msg-user").filter({ hasText: "second question" }).getAttribute("data-seq"));
    const second = p.page.locator(`.msg-user[data-seq="${seq}"]`);
    await second.getByRole("button", { name: "Edit" }).click();
    const editor = second.getByRole("textbox", { name: "Edited message" });
    assert.equal(await editor.inputValue(), "second question");
    await editor.fill("second question, rephrased");
    const forked = p.page.waitForResponse((r) => r.url().endsWith(`/api/sessions/${original}/fork`));
    await second.getByRole("button", { name: "Send as a new session" }).click();
    const res = await forked;
    assert.equal(res.status(), 201);
    assert.equal(JSON.parse(res.request().postData()).seq, seq, "the fork is at that user_message's seq");
    await p.page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(original));
    const fork = decodeURIComponent(new URL(p.page.url()).pathname.split("/").pop());
    const banner = p.page.locator(".fork-banner");
    await banner.getByText("at message 2").waitFor({ timeout: 5000 }).catch(async () => {
      throw new Error(`no 'at message 2' in the banner: ${await banner.innerText().catch(() => "(no banner)")}`);
    });
    assert.equal(await banner.getByRole("link").innerText(), "Fork source");
    await p.page.locator(".msg-user").getByText("second question, rephrased").waitFor();
    await p.page.locator(".run-end").nth(1).waitFor({ timeout: 10_000 });
    const userTexts = await p.page.locator(".msg-user .user-text").allInnerTexts();
    assert.deepEqual(userTexts, ["first question", "second question, rephrased"]);
    await shot(p.page, "54-fork");
    // The original is as it was.
    const orig = (await events(p, original)).filter((e) => e.type === "user_message").map((e) => e.text);
    assert.deepEqual(orig, ["first question", "second question"]);
    await banner.getByRole("link").click();
    await p.page.waitForURL((u) => u.pathname.endsWith(original));
    await p.page.locator(".msg-user").getByText("second question").first().waitFor();
    assert.equal(await p.page.locator(".fork-banner").count(), 0);
    assert.notEqual(fork, original);
    assertClean(p);
    await p.context.close();
  });

  test("a pending plan's diagram that fails in the browser is reported to the server once (code and error still shown)", { timeout: 40_000 }, async () => {
    const p = await open();
    const posts = [];
    await p.page.route(/\/api\/plans\/[^/]+\/render-errors$/, async (route) => {
      posts.push({ url: route.request().url(), body: JSON.parse(route.request().postData()) });
      await route.fulfill({ status: 204 });
    });
    const { inj } = await fixtureSession(p, "Render errors");
    const run = "01RUNFIXTURERENDER00000000";
    const reported = p.page.waitForRequest(/\/render-errors$/, { timeout: 20_000 });
    inj.send({ type: "run_started", run, run_id: run, agent: "plan", mode: "ask", trigger: "prompt" });
    inj.send({
      type: "plan_proposed", run, plan_id: "01PLANRENDER", artifact_id: "01ARTRENDER", call_id: "x1", revision: 1, title: "Greeter",
      plan: "# Greeter\n\n## Flow\n\nSay hello.", hash: "h", files: [], removed: [], dropped: [],
      diagrams: [
        { id: "broken", title: "Broken", explanation: "", section: "Flow", type: "flowchart", mermaid: "flowchart TD\n  A[greet(name)] --> B{{{", mark: "new" },
        { id: "fine", title: "Fine", explanation: "", section: "", type: "flowchart", mermaid: "flowchart TD\n  A --> B", mark: "new" },
      ],
    });
    const card = p.page.locator(".plan-card");
    await reported.catch(() => {
      throw new Error("the render error was not reported to the server");
    });
    await card.locator('[data-diagram-id="broken"] .diagram-error').waitFor({ timeout: 5000 });
    await card.locator('[data-diagram-id="fine"] img.diagram-img').waitFor({ timeout: 5000 });
    await card.locator('[data-diagram-id="broken"] .diagram-source summary').click();
    await card.locator('[data-diagram-id="broken"] .diagram-source pre.code').getByText("greet(name)").waitFor({ timeout: 1000 });
    await afterPaint(p.page);
    assert.equal(posts.length, 1, `one report: ${JSON.stringify(posts)}`);
    assert.ok(posts[0].url.endsWith("/api/plans/01PLANRENDER/render-errors"));
    assert.deepEqual(posts[0].body.errors.map((e) => e.diagram_id), ["broken"]);
    assert.ok(posts[0].body.errors[0].message.length > 0, "Mermaid's message is sent");
    await shot(p.page, "56-render-error");
    // The card drawn again (the session left and opened again in the app): not reported again.
    await p.page.getByRole("link", { name: "Settings" }).first().click();
    await card.waitFor({ state: "detached" });
    await p.page.goBack();
    await card.locator('[data-diagram-id="broken"] .diagram-error').waitFor({ timeout: 10_000 });
    await card.locator('[data-diagram-id="fine"] img.diagram-img').waitFor({ timeout: 10_000 });
    await afterPaint(p.page);
    assert.equal(p.log.requests.filter((u) => u.endsWith("/render-errors")).length, 1, "reported once per plan");
    assertClean(p);
    await p.context.close();
  });

  test("Esc stops a streaming turn and says so; Resume continues it; Esc leaves a run waiting on an approval alone", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Esc stops", mode: "ask" });
    await sendPrompt(p.page, "slow reply to stop");
    await p.page.locator(".msg-assistant").waitFor({ timeout: 10_000 });
    await p.page.locator(".composer textarea").focus();
    await p.page.keyboard.press("Escape");
    const end = p.page.locator('.run-end[data-status="cancelled"]');
    await end.getByText("Stopped — press Resume to continue").waitFor({ timeout: 5000 }).catch(async () => {
      throw new Error(`Esc did not stop the run: ${await p.page.locator(".transcript").innerText()}`);
    });
    await shot(p.page, "55-esc-stopped");
    await end.getByRole("button", { name: "Resume" }).click();
    await p.page.locator('.system-note[data-internal="resume"]').waitFor({ timeout: 5000 });
    await p.page.locator(".run-start").getByText("Resuming the run that stopped").waitFor();
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    await p.page.locator(".run-end").nth(1).waitFor({ timeout: 10_000 });
    assert.equal(
      await p.page.locator(".run-end").nth(1).locator(".run-status").innerText(),
      "Stopped — press Resume to continue",
      "a Cancel click reads as Esc does (the server knows no difference, so a reload could not keep one)",
    );

    // A run waiting on an approval: Esc is not a stop.
    await sendPrompt(p.page, "write a file please");
    const card = p.page.locator(".transcript .approval-card");
    await card.getByRole("button", { name: "Allow once" }).waitFor({ timeout: 10_000 });
    await p.page.locator("body").focus();
    await p.page.evaluate(() => document.activeElement?.blur());
    await p.page.keyboard.press("Escape");
    await card.getByRole("button", { name: "Allow once" }).click();
    await p.page.locator(".run-end").nth(2).waitFor({ timeout: 10_000 });
    assert.equal(await p.page.locator(".run-end").nth(2).getAttribute("data-status"), "completed", "Esc cancelled a run that waited on an approval");
    const cancels = p.log.requests.filter((u) => /\/api\/runs\/[^/]+\/cancel$/.test(u)).length;
    assert.equal(cancels, 2, "one cancel for Esc, one for the button, none for the Esc on the approval");
    assert.ok((await events(p, id)).some((e) => e.type === "tool_result" && e.ok), "the approved write ran");
    assertClean(p);
    await p.context.close();
  });

  test("user_message.origin decides a system note; a fatal error shows once, at the run's end", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Origin and fatal");
    const run = "01RUNFIXTUREORIGIN00000000";
    // The run's trigger says prompt; the message's own origin says resume: origin wins.
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "user_message", run, message_id: "01MSGORIGIN", text: "Continue the previous task.", origin: "resume" });
    await p.page.locator('.system-note[data-internal="resume"]').waitFor();
    assert.equal(await p.page.locator(".msg-user").count(), 0);
    inj.send({ type: "error", run, code: "provider_overloaded", message: "busy (503)", fatal: true });
    inj.send({ type: "message_delta", run, message_id: "01MARK", text: "marker text" });
    await p.page.locator(".msg-assistant").getByText("marker text").waitFor();
    assert.equal(await p.page.locator(".notice-item").count(), 0, "a fatal error waits for the run's end");
    inj.send({ type: "run_finished", run, run_id: run, status: "failed", reason: null, error: { code: "provider_overloaded", message: "busy (503)" }, usage: usage(3, 1), duration_ms: 20 });
    await p.page.locator('.run-end[data-status="failed"] .error-note').waitFor();
    assert.equal(await p.page.locator(".transcript .error-note").count(), 1, "the error shows once");
    assertClean(p);
    await p.context.close();
  });
});
